Feature: Sub-agent budgets, registries and joins at their edges
  The sub-agent rules of subagents.feature, each taken to its boundary: a
  root with no depth budget, a profile's max_depth and a caller's depth
  hint below what the child would inherit, one scoped provider, a cap of
  one running child, a cap of zero, a profile's own max_turns, a registry
  of one tool, a spawn that names a call that has already returned, and a
  parent whose spawn tool returned before its child ended.

  Background:
    Given a spawn-capable tool "spawn_agent" from provider "agents"
    And a policy rule "allow-spawn" that allows "spawn_agent"

  @SA-06 @must
  Scenario: a root whose depth budget is zero is never offered the spawn tool
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And sub-agents may nest 0 deep with at most 2 running per parent
    And a sub-agent profile "leaf" with no tools
    And the model answers request 1 with call search(query "warm-up")
    And the model answers request 2 with text "Done."
    When the session runs
    Then no root model request offered "spawn_agent"
    And root model request 1 offered "search"
    And 0 sub-agents were started

  @SA-06 @must
  Scenario: a profile's max_depth below the inherited budget wins
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And sub-agents may nest 3 deep with at most 2 running per parent
    And a sub-agent profile "capped" with tools "spawn_agent" and "search"
    And profile "capped" has max_depth 0
    And a sub-agent profile "leaf" with no tools
    And the model answers request 1 with call spawn_agent(profile "capped", prompt "Capped by its profile")
    And "capped" sub-agents answer request 1 with call spawn_agent(profile "leaf", prompt "Go deeper")
    When the session runs
    Then root model request 1 offered "spawn_agent"
    And the "capped" child's model requests never offered "spawn_agent"
    And the "capped" child's first model request offered "search"
    And the "capped" child never had "spawn_agent" invoked
    And 1 sub-agent was started
    And every reported remaining depth follows the inheritance rule

  @SA-10 @must
  Scenario: a caller's depth hint below the inherited budget wins
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And sub-agents may nest 3 deep with at most 2 running per parent
    And a sub-agent profile "hinted" with tools "spawn_agent" and "search"
    And a sub-agent profile "leaf" with no tools
    And the model answers request 1 with call spawn_agent(profile "hinted", prompt "Capped by the caller", remaining_depth 0)
    And "hinted" sub-agents answer request 1 with call spawn_agent(profile "leaf", prompt "Go deeper")
    When the session runs
    Then the "hinted" child's model requests never offered "spawn_agent"
    And 1 sub-agent was started
    And every reported remaining depth follows the inheritance rule

  @SA-10 @must
  Scenario: one scoped provider narrows the child's tools to that provider's
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And a data_source tool "read" from provider "fs" declared safe with no key fields
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "mixed" with tools "search" and "read"
    And "mixed" sub-agents answer request 1 with text "MIXED-DONE"
    And the model answers request 1 with call spawn_agent(profile "mixed", prompt "Read only", scoped_providers "fs")
    When the session runs
    Then the "mixed" child's model requests never offered "search"
    And 1 sub-agent was started

  @SA-03 @must
  Scenario: with a cap of one running child, the second starts only after the first has ended
    Given sub-agents may nest 1 deep with at most 1 running per parent
    And a sub-agent profile "worker" with no tools
    And the first model request of each "worker" sub-agent is held until 1 of them wait together
    And the model answers request 1 with calls spawn_agent(profile "worker", prompt "job 1"), spawn_agent(profile "worker", prompt "job 2"), spawn_agent(profile "worker", prompt "job 3")
    When the session runs
    Then 1 "worker" sub-agents were in flight at the model together, never more
    And 3 "worker" sub-agents ended with status "completed"
    And the session ends with status "completed"

  @SA-03 @must
  Scenario: a cap of zero never leaves a spawn waiting for ever
    A cap of 0 is an open point (A-25): the kernel may read it as its
    default, as no cap, or refuse the spawns; none may queue them for ever.

    Given sub-agents may nest 1 deep with at most 0 running per parent
    And a sub-agent profile "worker" with no tools
    And the model answers request 1 with calls spawn_agent(profile "worker", prompt "job 1"), spawn_agent(profile "worker", prompt "job 2")
    And the model answers request 2 with text "Done."
    When the session runs
    Then every spawn was answered

  @TA-02 @must
  Scenario: a child runs under its profile's max_turns, not the root's
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And the session allows at most 6 turns
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "brief" with tools "search"
    And profile "brief" has max_turns 1
    And a sub-agent profile "long" with tools "search"
    And profile "long" has max_turns 3
    And "brief" sub-agents answer every request with a call to "search" whose query changes each time
    And "long" sub-agents answer every request with a call to "search" whose query changes each time
    And the model answers request 1 with calls spawn_agent(profile "brief", prompt "One step"), spawn_agent(profile "long", prompt "Three steps")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the "brief" child ran 1 ordinary turn before its final answer
    And the "long" child ran 3 ordinary turns before its final answer

  @SA-07 @must
  Scenario: a registry of one spawn tool that a profile lists is accepted and offered to the child
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "planner" with tools "spawn_agent"
    And "planner" sub-agents answer request 1 with text "PLANNED"
    And the model answers request 1 with call spawn_agent(profile "planner", prompt "Plan it")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the "planner" child's first model request offered "spawn_agent"
    And 1 sub-agent was started

  @SA-10 @must
  Scenario: a spawn naming a call that has already returned is refused
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "worker" with no tools
    And "worker" sub-agents answer request 1 with text "WORKED"
    And the model answers request 1 with call spawn_agent(profile "worker", prompt "First job")
    And the model answers request 2 with call spawn_agent(profile "worker", prompt "Sneak in", call "previous")
    And the model answers request 3 with text "Done."
    When the session runs
    Then the spawn that named a call which had already returned was refused, and started no session
    And 1 sub-agent was started

  @SA-04 @must
  Scenario: a parent whose spawn tool returned before its child ended still outlasts the child
    The spawn tool answers its call as soon as the child has started; the
    parent's turn may go on, but the parent ends only after the child.

    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "background" with no tools
    And the first model request of the "background" sub-agent is held unless the root ends first
    And "background" sub-agents answer request 1 with text "BACKGROUND-DONE"
    And the model answers request 1 with call spawn_agent(profile "background", prompt "Work on it", detach "yes")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the root's end row came after the end row of the "background" sub-agent
