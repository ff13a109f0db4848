Feature: Call context and what the kernel keeps out of persisted state
  Every model request and every tool invoke carries a call_context with the
  issuing session's id, the id of the turn it belongs to and the session's
  working directory: the turn_id stays the same within a turn and changes
  from one turn to the next. Trace and span ids are telemetry only: none of
  them may appear in events (plan_item rows among them), cost reports,
  session rows or plan items. That a replay of a stored session emits no
  telemetry cannot be observed through this protocol, which has no replay.

  Background:
    Given a data_source tool "read" from provider "fs" declared safe with no key fields
    And a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"

  @TA-31 @must
  Scenario: every model request and invoke names the session, its turn and the working directory
    Given the session works in "/conform/ta31/workdir"
    And the model answers request 1 with calls read(path "a"), write(path "b")
    And the model answers request 2 with calls read(path "c"), read(path "d")
    And the model answers request 3 with call write(path "e")
    And the model answers request 4 with text "Done."
    When the session runs
    Then every model request and tool invoke carried the session's call_context
    And the turn_id stayed the same within each turn and changed from turn to turn

  @TA-31 @must
  Scenario: the final-answer turn is a turn of its own
    Given the session works in "/conform/ta31/limits"
    And the session allows at most 2 turns
    And the model answers every request with a call to "read" whose path changes each time
    When the session runs
    Then every model request and tool invoke carried the session's call_context
    And the final-answer turn carried a turn_id of its own

  @TA-31 @must
  Scenario: in a session tree, every invoke of the root, a child and a grandchild carries the call_context of the session and turn that asked for it
    A child's and a grandchild's calls run through the same host as the
    root's; a kernel that sends them with the parent's call_context, or the
    root's, is caught here. Where a call comes from is read from the log:
    the model reply that asked for it.
    Given a spawn-capable tool "spawn_agent" from provider "agents"
    And a policy rule "allow-spawn" that allows "spawn_agent"
    And sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "planner" with tools "spawn_agent" and "read"
    And a sub-agent profile "reader" with tools "read"
    And the model answers request 1 with call read(path "root")
    And the model answers request 2 with call spawn_agent(profile "planner", prompt "Plan it")
    And "planner" sub-agents answer request 1 with call read(path "child")
    And "planner" sub-agents answer request 2 with call spawn_agent(profile "reader", prompt "Read it")
    And "reader" sub-agents answer request 1 with call read(path "grandchild")
    When the session runs
    Then every tool invoke of every session of the tree carried the call_context of the session and turn whose reply asked for it

  @TA-32 @must
  Scenario: no trace or span id leaks into events, cost reports, session rows or plan items
    Given telemetry is on
    And an observe subscriber "O" at every hook point
    And the session allows at most 2 turns
    And the model answers request 1 with calls read(path "a"), write(path "b")
    And the model answers request 2 with call write(path "c")
    When the session runs
    Then no trace or span id appears in any event, cost report, session row or plan item
