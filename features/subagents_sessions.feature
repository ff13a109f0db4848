Feature: Per-session rules in a child, and cancelling the middle of a tree
  Rules that hold in every session, judged in a child or grandchild where
  the other scenarios judge them in the root: a kernel that gets them
  right only in the root, or keeps their state for the whole tree, fails
  here. A session's own running cost total, its own cost cap, its one
  final-answer turn and its own retries; and a cancellation aimed at the
  middle of a tree, which must reach that session and its descendants and
  nothing above or beside them.

  Background:
    Given a spawn-capable tool "spawn_agent" from provider "agents"
    And a policy rule "allow-spawn" that allows "spawn_agent"
    And a data_source tool "search" from provider "web" declared safe with no key fields

  @TA-06 @must
  Scenario: a child's and a grandchild's cost reports carry their own running totals, not their subtree's
    The manager spends before its worker starts and again after the worker
    returned: a kernel that reports a session's rolled-up spend as its
    session_total_usd counts the worker's cost in the manager's second
    report, and in the root's.
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "manager" with tools "spawn_agent"
    And a sub-agent profile "worker" with no tools
    And every reply to a "manager" sub-agent uses 200000 input tokens
    And every reply to a "worker" sub-agent uses 70000 input tokens
    And the model answers request 1 with call spawn_agent(profile "manager", prompt "Run the project")
    And the model answers request 2 with text "Done."
    And "manager" sub-agents answer request 1 with call spawn_agent(profile "worker", prompt "Do the work")
    And "manager" sub-agents answer request 2 with text "MANAGER-DONE"
    And "worker" sub-agents answer request 1 with text "WORKER-DONE"
    When the session runs
    Then every session of the tree reports its own running total, its child sessions' costs left out

  @SA-08 @must
  Scenario: cancelling a middle session cancels it and its grandchild, and leaves the root and its sibling running
    The harness cancels the manager while its worker waits inside its
    first model call and the manager's sibling is held until the manager
    has ended: the sibling is still running when the cancellation lands.
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "manager" with tools "spawn_agent"
    And a sub-agent profile "worker" with no tools
    And a sub-agent profile "sibling" with no tools
    And "manager" sub-agents answer request 1 with call spawn_agent(profile "worker", prompt "Do the work")
    And "sibling" sub-agents answer request 1 with text "SIBLING-DONE"
    And the first model request of the "sibling" sub-agent is held until the "manager" child has ended
    And the harness cancels the "manager" child once the first model request of its "worker" sub-agent is held
    And the model answers request 1 with calls spawn_agent(profile "manager", prompt "Run the project"), spawn_agent(profile "sibling", prompt "Side job")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the "manager" child and its descendants ended "cancelled", while the root and the "sibling" child ran on and completed

  @ER-01 @must
  Scenario: two children failing at the same moment each retry with their own backoff
    Both children's first requests are answered together with rate_limited,
    and their retries fail once more: each child owes two retries of its
    own. A kernel that counts attempts per model for the whole tree lets
    one child use up the other's.
    Given retry settings of base 40 ms, factor 2 and 2 retries per call
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "worker" with no tools
    And the first model requests of 2 "worker" sub-agents are held until they all wait, then answered together
    And "worker" sub-agents fail requests 1 to 2 with "rate_limited"
    And "worker" sub-agents answer request 3 with text "Recovered."
    And the model answers request 1 with calls spawn_agent(profile "worker", prompt "job 1"), spawn_agent(profile "worker", prompt "job 2")
    And the model answers request 2 with text "Done."
    When the session runs
    Then each "worker" child's model requests 2 to 3 were retries, waiting a backoff from 40 ms growing by a factor of 2

  @TA-08 @must
  Scenario: a child whose turn bound fired takes exactly one final-answer turn
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "brief" with tools "search"
    And profile "brief" has max_turns 1
    And "brief" sub-agents answer every request with a call to "search" whose query changes each time
    And the model answers request 1 with call spawn_agent(profile "brief", prompt "One step")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the "brief" child took exactly one final-answer turn after its bound fired

  @TA-03 @must
  Scenario: a child's own cost cap fires at the end of the turn that reached it
    The root has no cost bound, so the child's budget is its profile's
    $0.50. Its replies cost $0.30 each: $0.30 after its first turn goes on,
    $0.60 after its second fires the bound.
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "worker" with tools "search"
    And profile "worker" has a cost cap of $0.50
    And profile "worker" has max_turns 8
    And every reply to a "worker" sub-agent uses 300000 input tokens
    And "worker" sub-agents answer every request with a call to "search" whose query changes each time
    And the model answers request 1 with call spawn_agent(profile "worker", prompt "Research")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the "worker" child's own cost cap of $0.50 fired at the end of its turn 2, the first whose spend reached it

  @TA-01 @must
  Scenario: a child's turns run the steps in the documented order too
    Given an observe subscriber "M" at "pre-model-call"
    And an observe subscriber "P" at "pre-tool-call"
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "reader" with tools "search"
    And "reader" sub-agents answer request 1 with call search(query "a")
    And "reader" sub-agents answer request 2 with text "Read."
    And the model answers request 1 with call spawn_agent(profile "reader", prompt "Read it")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the requests of the "reader" child's turn 1 arrived in this order:
      | context/assemble      |
      | hook pre-model-call M |
      | model/stream          |
      | hook pre-tool-call P  |
      | invoke search         |
    And the requests of the "reader" child's turn 2 arrived in this order:
      | context/assemble      |
      | hook pre-model-call M |
      | model/stream          |

  @TA-26 @must
  Scenario: a child repeating one call takes the limit path right after the threshold's identical call
    Given the doom-loop threshold is 2
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "looper" with tools "search"
    And profile "looper" has max_turns 6
    And "looper" sub-agents answer every request with the same call to "search"
    And the model answers request 1 with call spawn_agent(profile "looper", prompt "Search")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the "looper" child took the limit path right after its 2nd identical call, ending with the kernel's doom-loop status

  @TA-12 @must
  Scenario: a child whose arguments change every time never trips the detector
    Given the doom-loop threshold is 2
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "explorer" with tools "search"
    And profile "explorer" has max_turns 4
    And "explorer" sub-agents answer every request with a call to "search" whose query changes each time
    And the model answers request 1 with call spawn_agent(profile "explorer", prompt "Explore")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the "explorer" child's changing calls never tripped the detector: it ran 4 ordinary turns

  @SA-10 @must
  Scenario: a child's spawn naming its own session is accepted, and the grandchild is its own
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "manager" with tools "spawn_agent"
    And a sub-agent profile "worker" with no tools
    And "manager" sub-agents answer request 1 with call spawn_agent(profile "worker", prompt "Do the work")
    And "manager" sub-agents answer request 2 with text "MANAGER-DONE"
    And the model answers request 1 with call spawn_agent(profile "manager", prompt "Run the project")
    And the model answers request 2 with text "Done."
    When the session runs
    Then every spawn that named its caller's own session was accepted, its child under that caller

  @TA-04 @should
  Scenario: a child whose turn crosses its wall-clock bound takes the limit path at the end of that turn
    The child inherits the session's bound of a quarter second. Its first
    call is held until 1.25 seconds after the session started, so its first
    turn crosses the bound by a second whether its clock runs from its own
    start or from the root's.
    Given a data_source tool "wait" from provider "clock" declared safe with no key fields
    And the session has a wall-clock bound of 0.25 seconds
    And the tool "wait" is held until 1.25 seconds after the session started
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "waiter" with tools "wait"
    And profile "waiter" has max_turns 4
    And "waiter" sub-agents answer every request with a call to "wait" whose ticket changes each time
    And the model answers request 1 with call spawn_agent(profile "waiter", prompt "Wait for it")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the "waiter" child's wall-clock bound of 0.25 seconds fired at the end of its turn 1, which crossed it
