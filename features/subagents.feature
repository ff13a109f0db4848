Feature: Sub-agents, RunSession and the session tree
  A spawn-capable tool (declared spawn_capable in the session config) calls
  the kernel back with session/spawn while its tool/invoke is in flight. The
  kernel runs a child session from the named sub-agent profile and answers
  with the child's RunSessionResult, which the tool hands back as its
  result. The fake tool keeps its session/spawn open even when the kernel
  cancels the tool call, so that any cancellation of a child is the kernel's
  own doing. Child sessions are recognised by their session_meta rows, and
  their model requests are answered from the script of their profile.

  Background:
    Given a spawn-capable tool "spawn_agent" from provider "agents"
    And a policy rule "allow-spawn" that allows "spawn_agent"
    And a data_source tool "search" from provider "web" declared safe with no key fields

  @SA-01 @must
  Scenario: a child starts from its prompt alone, with nothing of the parent's history
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "researcher" with tools "search"
    And the user's prompt mentions "PARENT-MARK-1"
    And the model answers request 1 with call search(query "PARENT-MARK-2")
    And the model answers request 2 with call spawn_agent(profile "researcher", prompt "Find the owner of a.txt")
    When the session runs
    Then the "researcher" child's first model request holds only its prompt
    And no request of a "researcher" sub-agent contains "PARENT-MARK-1"
    And no request of a "researcher" sub-agent contains "PARENT-MARK-2"
    And the session ends with status "completed"

  @SA-01 @must
  Scenario: a grandchild starts from its prompt alone, with nothing of its parent's or the root's history
    The middle session's history holds its own prompt and a search result;
    a kernel that forks history for nested sessions only is caught here.
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "planner" with tools "spawn_agent" and "search"
    And a sub-agent profile "researcher" with tools "search"
    And the user's prompt mentions "PARENT-MARK-1"
    And the model answers request 1 with call spawn_agent(profile "planner", prompt "Plan it with CHILD-MARK-1")
    And "planner" sub-agents answer request 1 with call search(query "CHILD-MARK-2")
    And "planner" sub-agents answer request 2 with call spawn_agent(profile "researcher", prompt "Find the owner of a.txt")
    When the session runs
    Then the "researcher" grandchild's first model request holds only its prompt
    And no request of a "researcher" sub-agent contains "PARENT-MARK-1"
    And no request of a "researcher" sub-agent contains "CHILD-MARK-1"
    And no request of a "researcher" sub-agent contains "CHILD-MARK-2"
    And the session ends with status "completed"

  @SA-02 @may
  Scenario: a profile that opts in starts its child with the parent's history, others still start fresh
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "historian" with tools "search"
    And profile "historian" forks the parent's history
    And a sub-agent profile "researcher" with tools "search"
    And the user's prompt mentions "PARENT-MARK-1"
    And the model answers request 1 with call search(query "PARENT-MARK-2")
    And the model answers request 2 with calls spawn_agent(profile "historian", prompt "Summarise what we did"), spawn_agent(profile "researcher", prompt "Look it up")
    When the session runs
    Then the "historian" child's first model request contains "PARENT-MARK-1" and "PARENT-MARK-2"
    And the "historian" child's first model request contains "Summarise what we did"
    And the "researcher" child's first model request holds only its prompt
    And no request of a "researcher" sub-agent contains "PARENT-MARK-2"

  @SA-03 @must
  Scenario: spawns beyond max_concurrent queue: two children at the model at once, never more, and all four finish
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "worker" with no tools
    And the first model request of each "worker" sub-agent is held until 2 of them wait together
    And the model answers request 1 with calls spawn_agent(profile "worker", prompt "job 1"), spawn_agent(profile "worker", prompt "job 2"), spawn_agent(profile "worker", prompt "job 3"), spawn_agent(profile "worker", prompt "job 4")
    When the session runs
    Then 2 "worker" sub-agents were in flight at the model together, never more
    And 4 "worker" sub-agents ended with status "completed"
    And the session ends with status "completed"

  @SA-04 @must
  Scenario: the parent's turn goes on only after its slowest child has returned
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "quick" with no tools
    And a sub-agent profile "slow" with no tools
    And an observe subscriber "ends" at "session-end"
    And an observe subscriber "applies" at "post-apply"
    And the first model request of the "slow" sub-agent is held unless the root moves past its apply step
    And "quick" sub-agents answer request 1 with text "QUICK-RESULT"
    And "slow" sub-agents answer request 1 with text "SLOW-RESULT"
    And the model answers request 1 with calls spawn_agent(profile "quick", prompt "fast job"), spawn_agent(profile "slow", prompt "slow job")
    When the session runs
    Then the root's post-apply came after the "slow" sub-agent's session-end
    And root model request 2 came after the "slow" sub-agent's session-end
    And root model request 2 holds tool results saying "QUICK-RESULT" and "SLOW-RESULT"

  @SA-05 @SA-13 @must
  Scenario: the harness rebuilds the whole session tree from session_meta rows alone
    The absence of any separate parent-to-children index (SA-05) cannot be
    seen over the wire; what is checked is that the rows alone give the tree.

    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "planner" with tools "spawn_agent"
    And a sub-agent profile "researcher" with tools "search"
    And the model answers request 1 with calls spawn_agent(profile "planner", prompt "Plan it"), spawn_agent(profile "researcher", prompt "Look it up")
    And "planner" sub-agents answer request 1 with call spawn_agent(profile "researcher", prompt "Dig deeper")
    When the session runs
    Then the session_meta rows rebuild the tree of the spawns
    And 3 sub-agents were started

  @SA-06 @must
  Scenario: at a depth budget of zero the spawn tool is gone, even though the child's profile names it
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "planner" with tools "spawn_agent" and "search"
    And a sub-agent profile "leaf" with no tools
    And the model answers request 1 with call spawn_agent(profile "planner", prompt "Plan it")
    And "planner" sub-agents answer request 1 with call spawn_agent(profile "leaf", prompt "Go deeper")
    When the session runs
    Then root model request 1 offered "spawn_agent"
    And the "planner" child's model requests never offered "spawn_agent"
    And the "planner" child's first model request offered "search"
    And the "planner" child never had "spawn_agent" invoked
    And 1 sub-agent was started
    And every reported remaining depth follows the inheritance rule

  @SA-06 @must
  Scenario: the depth budget only shrinks: a child profile's larger max_depth does not win over the ancestor's
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "planner" with tools "spawn_agent" and "search"
    And profile "planner" has max_depth 5
    And a sub-agent profile "helper" with tools "spawn_agent" and "search"
    And profile "helper" has max_depth 5
    And a sub-agent profile "leaf" with no tools
    And the model answers request 1 with call spawn_agent(profile "planner", prompt "Plan it")
    And "planner" sub-agents answer request 1 with call spawn_agent(profile "helper", prompt "Help")
    And "helper" sub-agents answer request 1 with call spawn_agent(profile "leaf", prompt "Go deeper")
    When the session runs
    Then the "planner" child's first model request offered "spawn_agent"
    And the "helper" grandchild's model requests never offered "spawn_agent"
    And the "helper" grandchild never had "spawn_agent" invoked
    And 2 sub-agents were started
    And every reported remaining depth follows the inheritance rule

  @SA-07 @must
  Scenario: recursion is off unless the child's profile lists the spawn tool
    Given sub-agents may nest 3 deep with at most 2 running per parent
    And a sub-agent profile "plain" with tools "search"
    And a sub-agent profile "recursive" with tools "search" and "spawn_agent"
    And a sub-agent profile "leaf" with no tools
    And the model answers request 1 with calls spawn_agent(profile "plain", prompt "Do it yourself"), spawn_agent(profile "recursive", prompt "Delegate if you like")
    And "plain" sub-agents answer request 1 with call spawn_agent(profile "leaf", prompt "Go deeper")
    When the session runs
    Then the "plain" child's model requests never offered "spawn_agent"
    And the "plain" child never had "spawn_agent" invoked
    And the "recursive" child's first model request offered "spawn_agent"
    And 2 sub-agents were started

  @SA-08 @SA-14 @must
  Scenario: cancelling the root cancels its child and grandchild, which end cleanly and are recorded
    The root and its child wait inside their spawn tool calls, the grandchild
    inside its first model call, when the harness cancels the root. Each of
    these calls must be cancelled ($/cancelRequest), not waited out: the
    fakes hold them well beyond the bound. The partial message may be on
    record in the child's end session_meta row or in a message event of the
    child. What SA-14 says of a cancelled child is judged on the sessions
    the cascade reached.
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "manager" with tools "spawn_agent"
    And a sub-agent profile "worker" with no tools
    And an observe subscriber "ends" at "session-end"
    And the model answers request 1 with call spawn_agent(profile "manager", prompt "Run the project")
    And "manager" sub-agents answer request 1 with text "MANAGER-PARTIAL" and call spawn_agent(profile "worker", prompt "Do the work")
    And the harness cancels the session once the first model request of a "worker" sub-agent is held
    When the session runs
    Then the session ends with status "cancelled"
    And the tree had 3 sessions
    And every session of the tree ended with status "cancelled" in its session_meta row
    And every session of the tree fired session-end once, carrying "cancelled"
    And every spawn was answered with status "cancelled"
    And the "manager" child's end row carries its partial message "MANAGER-PARTIAL"
    And every call in flight in the tree when the harness cancelled was abandoned within 3000 ms
    And no session of the tree sent a request after its end row

  @SA-09 @must
  Scenario: siblings share nothing: what one sibling produced never reaches the other
    Only the observable part is checked: a marker produced inside one
    sibling never appears in the other's requests. That no other hidden
    channel exists is not verifiable from outside, and this protocol has no
    Emit callback through which a child could name its sibling.

    Given sub-agents may nest 1 deep with at most 1 running per parent
    And a sub-agent profile "alpha" with no tools
    And a sub-agent profile "beta" with no tools
    And "alpha" sub-agents answer request 1 with text "ALPHA-SECRET"
    And "beta" sub-agents answer request 1 with text "BETA-SECRET"
    And the model answers request 1 with calls spawn_agent(profile "alpha", prompt "First part"), spawn_agent(profile "beta", prompt "Second part")
    When the session runs
    Then no request of a "beta" sub-agent contains "ALPHA-SECRET"
    And no request of an "alpha" sub-agent contains "BETA-SECRET"

  @SA-09 @must
  Scenario: the parent and two siblings that make the same read each get their own session's answer
    The search tool answers every call with a marker naming the session of
    the call. All three sessions search for the same thing: a kernel that
    caches reads by tool and input, or shares one result table across the
    tree, hands the first session's answer to the others.
    Given sub-agents may nest 1 deep with at most 1 running per parent
    And a sub-agent profile "researcher" with tools "search"
    And the tool "search" answers each session with a marker naming that session
    And the model answers request 1 with call search(query "same")
    And the model answers request 2 with calls spawn_agent(profile "researcher", prompt "Look it up"), spawn_agent(profile "researcher", prompt "Look it up too")
    And "researcher" sub-agents answer request 1 with call search(query "same")
    And "researcher" sub-agents answer request 2 with text "Found."
    When the session runs
    Then every session's model requests hold only their own session's "search" markers

  @PA-03 @must
  Scenario: a child's call that the policy denies never runs, and the child's model is told who denied it
    The policy is the session config's, and a child's calls go through the
    same gate as the root's; a kernel that gates the top-level agent only
    runs the child's call.
    Given a resource tool "delete" from provider "fs"
    And a policy rule "no-deletes" that denies "delete"
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "cleaner" with tools "delete"
    And the model answers request 1 with call spawn_agent(profile "cleaner", prompt "Clean up")
    And "cleaner" sub-agents answer request 1 with call delete(path "old.txt")
    And "cleaner" sub-agents answer request 2 with text "Could not delete."
    When the session runs
    Then the "cleaner" child's call to "delete" never ran and its next model request holds a denial naming "no-deletes"

  @HD-01 @must
  Scenario: a child's and a grandchild's hook chains keep the declared order too
    Hooks are declared once in the session config and dispatched in every
    session of the tree.
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour   |
      | T1         | transform | appends "A" |
      | O1         | observe   |             |
      | T2         | transform | appends "B" |
      | O2         | observe   |             |
    And sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "planner" with tools "spawn_agent"
    And a sub-agent profile "leaf" with no tools
    And the model answers request 1 with call spawn_agent(profile "planner", prompt "Plan it")
    And "planner" sub-agents answer request 1 with call spawn_agent(profile "leaf", prompt "Go")
    When the session runs
    Then the subscribers at "pre-model-call" were dispatched in this order: "T1", "O1", "T2", "O2"
    And the subscribers at "pre-model-call" of the "planner" child were dispatched in this order: "T1", "O1", "T2", "O2"
    And the subscribers at "pre-model-call" of the "leaf" grandchild were dispatched in this order: "T1", "O1", "T2", "O2"

  @TA-10 @must
  Scenario: a reply without tool calls ends a child and a grandchild after their tool turns
    Done detection is the same in every session of the tree.
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "planner" with tools "spawn_agent" and "search"
    And a sub-agent profile "leaf" with tools "search"
    And an observe subscriber "tools" at "pre-tool-call"
    And the model answers request 1 with call spawn_agent(profile "planner", prompt "Plan it")
    And "planner" sub-agents answer request 1 with call spawn_agent(profile "leaf", prompt "Go")
    And "planner" sub-agents answer request 2 with text "Planned."
    And "leaf" sub-agents answer request 1 with call search(query "x")
    And "leaf" sub-agents answer request 2 with text "Found."
    When the session runs
    Then the "planner" child ended completed with its model request 2, whose reply had no tool call
    And the "leaf" grandchild ended completed with its model request 2, whose reply had no tool call

  @SA-10 @must
  Scenario: a spawn's own larger depth, budget and providers do not override what the kernel computes
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a data_source tool "lookup" from provider "extra" declared safe with no key fields
    And the session has a cost bound of $1.00
    And every reply to the root uses 150000 input tokens
    And a sub-agent profile "worker" with tools "search" and "spawn_agent"
    And profile "worker" has max_turns 8
    And every reply to a "worker" sub-agent uses 300000 input tokens
    And "worker" sub-agents answer every request with a call to "search" whose query changes each time
    And the model answers request 1 with call spawn_agent(profile "worker", prompt "Research", remaining_depth 9, remaining_cost_budget_usd 100, scoped_providers "web,extra,agents")
    When the session runs
    Then the "worker" child's model requests never offered "spawn_agent"
    And the "worker" child's model requests never offered "lookup"
    And the "worker" child's own cost bound fired as soon as that budget was spent
    And every reported remaining depth follows the inheritance rule

  @SA-10 @must
  Scenario: a spawn that names a parent other than the caller's own session is refused
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "manager" with tools "spawn_agent"
    And a sub-agent profile "worker" with no tools
    And the model answers request 1 with call search(query "warm-up")
    And the model answers request 2 with calls spawn_agent(profile "manager", prompt "Manage"), spawn_agent(profile "worker", prompt "Stray", parent "no-such-session")
    And "manager" sub-agents answer request 1 with call spawn_agent(profile "worker", prompt "Sneak in", parent "root")
    When the session runs
    Then every spawn that claimed another parent was refused
    And 1 sub-agent was started

  @SA-11 @must
  Scenario: the spawn answer comes after the child ended and carries the totals of its whole subtree
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "manager" with tools "spawn_agent"
    And a sub-agent profile "worker" with no tools
    And every reply to a "manager" sub-agent uses 200000 input tokens
    And every reply to a "worker" sub-agent uses 70000 input tokens
    And the model answers request 1 with call spawn_agent(profile "manager", prompt "Run the project")
    And "manager" sub-agents answer request 1 with call spawn_agent(profile "worker", prompt "Do the work")
    And "manager" sub-agents answer request 2 with text "MANAGER-DONE"
    And "worker" sub-agents answer request 1 with text "WORKER-DONE"
    When the session runs
    Then the spawn of the "manager" child was answered after it ended, with its status and the totals of its subtree
    And the spawn of the "worker" grandchild was answered after it ended, with its status and the totals of its subtree
    And the session's result totals cover every session of the tree
    And the session ends with status "completed"
    And the kernel answers session/cancel of every ended session of the tree with {}

  @SA-12 @must
  Scenario: only the child's final message crosses back into the parent's context
    The child's intermediate turns stay out of the parent's model requests.
    That they remain stored for audit is not asserted: the protocol does not
    require message events.

    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "worker" with tools "search"
    And "worker" sub-agents answer request 1 with text "INTERIM-NOTE" and call search(query "INTERIM-QUERY")
    And "worker" sub-agents answer request 2 with text "FINAL-ANSWER"
    And the model answers request 1 with call spawn_agent(profile "worker", prompt "Research")
    When the session runs
    Then root model request 2 holds tool results saying "FINAL-ANSWER"
    And no root model request contains "INTERIM-NOTE"
    And no root model request contains "INTERIM-QUERY"

  @SA-15 @must
  Scenario: a child's tools come from its own profile, and a profile without tools gives none
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And a resource tool "write" from provider "fs"
    And a sub-agent profile "reader" with tools "search"
    And a sub-agent profile "bare" with no tools
    And the model answers request 1 with calls spawn_agent(profile "reader", prompt "Read"), spawn_agent(profile "bare", prompt "Think")
    When the session runs
    Then the "reader" child's model requests offered exactly "search"
    And the "bare" child's model requests offered no tools
    And root model request 1 offered "write"

  @TA-07 @must
  Scenario: a child's budget is the root's remainder, and a descendant's spending fires the root's bound after the join
    The root's own replies cost $0.15 each; the child's cost $0.30 each. The
    child's budget is compared with its start session_meta row where the
    kernel reports remaining_cost_budget_usd (the field is optional); it is
    always checked through the turn at which the child's own bound fires.

    Given sub-agents may nest 1 deep with at most 2 running per parent
    And the session has a cost bound of $1.00
    And every reply to the root uses 150000 input tokens
    And a sub-agent profile "worker" with tools "search"
    And profile "worker" has max_turns 8
    And every reply to a "worker" sub-agent uses 300000 input tokens
    And "worker" sub-agents answer every request with a call to "search" whose query changes each time
    And the model answers request 1 with call spawn_agent(profile "worker", prompt "Research")
    When the session runs
    Then the "worker" child's budget is the smaller of the root's remainder at spawn and its profile's cap
    And the "worker" child's own cost bound fired as soon as that budget was spent
    And the root's cost bound fired after the join, though its own replies cost under $0.50

  @TA-07 @must
  Scenario: a child profile's cap below the root's remainder is the child's budget
    Given sub-agents may nest 1 deep with at most 2 running per parent
    And the session has a cost bound of $1.00
    And every reply to the root uses 150000 input tokens
    And a sub-agent profile "worker" with tools "search"
    And profile "worker" has a cost cap of $0.50
    And profile "worker" has max_turns 8
    And every reply to a "worker" sub-agent uses 300000 input tokens
    And "worker" sub-agents answer every request with a call to "search" whose query changes each time
    And the model answers request 1 with call spawn_agent(profile "worker", prompt "Research")
    When the session runs
    Then the "worker" child's budget is the smaller of the root's remainder at spawn and its profile's cap
    And the "worker" child's own cost bound fired as soon as that budget was spent
    And the root's cost bound fired after the join, though its own replies cost under $0.50

  @TA-07 @must
  Scenario: a grandchild's spending is debited from its parent, not only from the root
    The "manager" child's budget is its profile's $0.50; its own replies
    cost $0.10 each, its "worker" grandchild's $0.15 each. The worker's
    budget is the manager's remainder ($0.40), so it fires after three
    turns and its final answer takes the subtree to $0.70: the manager's
    bound fires at its next step 17, after the join, although its own
    replies cost $0.10. A kernel that debits a usage from the spender and
    the root but not from the sessions between them lets the manager go on.
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And the session has a cost bound of $2.00
    And every reply to the root uses 150000 input tokens
    And a sub-agent profile "manager" with tools "spawn_agent"
    And profile "manager" has a cost cap of $0.50
    And profile "manager" has max_turns 8
    And a sub-agent profile "worker" with tools "search"
    And profile "worker" has max_turns 8
    And every reply to a "manager" sub-agent uses 100000 input tokens
    And every reply to a "worker" sub-agent uses 150000 input tokens
    And "manager" sub-agents answer request 1 with call spawn_agent(profile "worker", prompt "Do the work")
    And "manager" sub-agents answer request 2 with text "MANAGER-DONE"
    And "worker" sub-agents answer every request with a call to "search" whose query changes each time
    And the model answers request 1 with call spawn_agent(profile "manager", prompt "Run the project")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the "manager" child's budget is the smaller of the root's remainder at spawn and its profile's cap
    And the "manager" child's own cost bound fired as soon as that budget was spent

  @TA-18 @must
  Scenario: every session of a tree fires session-start and session-end once
    A child and a grandchild are sessions of their own: each dispatches
    session-start before its first model request and session-end after its
    last, once to each subscriber. A kernel that fires them for the root
    only passes every scenario of a single session.
    Given sub-agents may nest 2 deep with at most 2 running per parent
    And a sub-agent profile "manager" with tools "spawn_agent"
    And a sub-agent profile "worker" with no tools
    And an observe subscriber "S" at "session-start"
    And an observe subscriber "E" at "session-end"
    And the model answers request 1 with call spawn_agent(profile "manager", prompt "Run the project")
    And the model answers request 2 with text "Done."
    And "manager" sub-agents answer request 1 with call spawn_agent(profile "worker", prompt "Do the work")
    And "manager" sub-agents answer request 2 with text "MANAGER-DONE"
    And "worker" sub-agents answer request 1 with text "WORKER-DONE"
    When the session runs
    Then every session of the tree dispatched "session-start" once before its first model request and "session-end" once after its last

  @SA-16 @must
  Scenario: the live tree is kept in kernel memory
    Cost roll-up, depth threading and cancellation are checked where they
    act (TA-07, SA-06, SA-08); that the kernel does them on an in-memory
    tree without reading session files cannot be seen from outside.

    Then whether the live session tree is kept in kernel memory, without reading session files, is not verifiable from outside
