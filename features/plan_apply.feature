Feature: The plan/apply gate and the precheck of reads and interactive calls
  Resource calls are collected into a plan, one item per call, and the
  kernel's own policy decides each item: allow applies it, ask sends it to
  the frontend and holds it until the answer, deny never runs it and gives
  the model a tool_result saying why. Reads and interactive calls get a
  precheck with the same rules whose only outcomes are allow and deny.

  The harness sees the gate through the plan_item events (the plan_items
  rows), the frontend/permission and frontend/interactive requests, the
  tool/preview and tool/invoke requests, error and ask_downgrade events, and
  the tool_result blocks of the next model request.

  @PA-01 @must
  Scenario: three resource calls to three providers get three independent decisions
    Given a resource tool "put" from provider "alpha"
    And a resource tool "post" from provider "beta"
    And a resource tool "push" from provider "gamma"
    And a policy rule "alpha-ok" that allows the tools of provider "alpha"
    And a policy rule "beta-ask" that asks for the tools of provider "beta"
    And a policy rule "gamma-no" that denies the tools of provider "gamma"
    And the frontend answers permission for "post" with DENY
    And the model answers request 1 with calls put(path "a"), post(path "b"), push(path "c")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the plan_item rows of turn 1 record these decisions:
      | tool | decision |
      | put  | allow    |
      | post | ask      |
      | push | deny     |
    And the plan_item rows of turn 1 name a different decider each
    And the frontend was asked about "post" 1 time
    And the frontend was never asked about "put" and "push"
    And the tool "put" was invoked 1 time
    And the tool "post" was never invoked
    And the tool "push" was never invoked
    And model request 2 holds an ordinary result for the call to "put"
    And model request 2 holds a denial for the call to "post"
    And model request 2 holds a denial for the call to "push"

  @PA-01 @must
  Scenario: the first rule that matches a call decides it, and a rule naming a provider matches only that provider's calls
    The rule for "push" names another provider, so it matches no call of
    this session; "put-ok" matches "put" before the catch-all deny does. A
    kernel that matches rules by tool name alone, or lets the last matching
    rule win, decides these two calls the other way round.
    Given a resource tool "put" from provider "alpha"
    And a resource tool "push" from provider "gamma"
    And a policy rule "push-ok-elsewhere" that allows "push" of provider "beta"
    And a policy rule "put-ok" that allows "put"
    And a policy rule "no" that denies every call
    And the model answers request 1 with calls put(path "a"), push(path "c")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the plan_item rows of turn 1 record these decisions:
      | tool | decision |
      | put  | allow    |
      | push | deny     |
    And the tool "put" was invoked 1 time
    And the tool "push" was never invoked
    And model request 2 holds a denial for the call to "push"

  @PA-10 @must
  Scenario: a rule naming the resource kind matches no read, which gets the default
    Given a resource tool "write" from provider "fs"
    And a data_source tool "search" from provider "web" declared safe with no key fields
    And a policy rule "no-writes" that denies every resource call
    And the model answers request 1 with calls write(path "a"), search(query "x")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the tool "search" was invoked 1 time
    And the tool "write" was invoked 0 times

  @PA-02 @may
  Scenario Outline: two ask items of one plan are presented together and decided one by one (<first> first)
    Batching is optional; a kernel that declares plan.batched_ask puts both
    items in one permission request, and the answers still count per item,
    whichever of them comes first in the answer.
    Given a resource tool "save" from provider "store"
    And a resource tool "drop" from provider "store"
    And a policy rule "store-ask" that asks for the tools of provider "store"
    And the frontend answers permission for "save" with ALLOW
    And the frontend answers permission for "drop" with DENY
    And the model answers request 1 with calls <calls>
    And the model answers request 2 with text "Done."
    When the session runs
    Then the frontend was asked about "save" and "drop" in one permission request
    And the tool "save" was invoked 1 time
    And the tool "drop" was never invoked
    And model request 2 holds a denial for the call to "drop"

    Examples:
      | first | calls                          |
      | save  | save(key "k1"), drop(key "k2") |
      | drop  | drop(key "k2"), save(key "k1") |

  @PA-03 @must
  Scenario Outline: a call denied <by whom> never runs and the model is told who denied it
    The denial must name what decided it (the rule, the decided_by of its
    plan_item row, or the human who answered), not just say something.
    Given a resource tool "delete" from provider "fs"
    And <rule>
    And the frontend answers permission for "delete" with DENY
    And the model answers request 1 with calls delete(path "a")
    And the model answers request 2 with text "I will not delete it."
    When the session runs
    Then the tool "delete" was never invoked
    And model request 2 holds a denial with a reason for the call to "delete"
    And the session ends with status "completed"

    Examples:
      | by whom                                  | rule                                              |
      | by a policy rule                         | a policy rule "no-delete" that denies "delete"    |
      | by the user                              | a policy rule "ask-delete" that asks for "delete" |
      | by the user, asked by the policy default | a policy rule "other" that allows "read"          |

  @PA-04 @must
  Scenario: plan mode leaves resource tools out of every model request
    Whether interactive tools are offered in plan mode is not asserted (A-31).
    Given a data_source tool "read" from provider "fs" declared safe with no key fields
    And a resource tool "write" from provider "fs"
    And a policy rule "write-ok" that allows "write"
    And plan mode is on
    And the model answers request 1 with calls read(path "a")
    And the model answers request 2 with text "Plan: write a."
    When the session runs
    Then model request 1 offered no resource tool
    And model request 2 offered no resource tool
    And the tool "read" was invoked 1 time
    And the session ends with status "completed"

  @PA-04 @must
  Scenario: in plan mode a forged call to a resource tool is recorded, not judged
    Plan mode works by leaving resource tools out of the request; the spec
    assumes a model cannot call a tool it was not offered. A forged call is
    sent anyway, and what the kernel does with it (refuse it, or put it
    through the plan/apply gate like any call) is recorded as an
    observation, never judged.
    Given a resource tool "write" from provider "fs"
    And a policy rule "write-ok" that allows "write"
    And plan mode is on
    And the model answers request 1 with calls write(path "forged")
    And the model answers request 2 with text "Done."
    When the session runs
    Then model request 1 offered no resource tool
    And model request 2 offered no resource tool
    And the kernel's reaction to the forged call to "write" is recorded

  @PA-05 @should
  Scenario: denials in a row trip the circuit breaker, which takes the limit path
    The breaker's threshold comes from config.policy.circuit_breaker (N is
    not specified, A-25). The arguments change every turn so the doom-loop
    detector stays quiet.
    Given a resource tool "write" from provider "fs"
    And a policy rule "no" that denies every call
    And the circuit breaker trips after 3 denials in a row
    And the session allows at most 10 turns
    And the model answers every request with a call to "write" whose path changes each time
    When the session runs
    Then the model was asked 4 times
    And model request 4 offered no tools
    And model request 4 carried an instruction the harness did not send
    And no tool ran after model request 4
    And the session ends with the kernel's circuit-breaker status

  @PA-05 @should
  Scenario: denials within the moving window trip the circuit breaker
    Three of the last four decisions are denials although never three in a
    row; an allowed read in between resets only the run (A-33).
    Given a resource tool "write" from provider "fs"
    And a data_source tool "look" from provider "kb" declared safe with no key fields
    And a policy rule "no-writes" that denies "write"
    And the circuit breaker trips after 3 denials among the last 4 decisions
    And the session allows at most 10 turns
    And the model answers request 1 with calls write(path "1")
    And the model answers request 2 with calls write(path "2")
    And the model answers request 3 with calls look(q "x")
    And the model answers request 4 with calls write(path "3")
    And the model answers request 5 with calls look(q "y")
    And the model answers request 6 with text "Done."
    When the session runs
    Then the model was asked 5 times
    And model request 5 offered no tools
    And the session ends with the kernel's circuit-breaker status

  @PA-06 @must
  Scenario: a read denied by the precheck never runs
    Given a data_source tool "secrets" from provider "vault" declared safe with no key fields
    And a policy rule "no-secrets" that denies "secrets"
    And the model answers request 1 with calls secrets(name "db")
    And the model answers request 2 with text "Understood."
    When the session runs
    Then the tool "secrets" was never invoked
    And model request 2 holds a denial for the call to "secrets"

  @PA-06 @must
  Scenario: an ask rule on a read becomes a deny, without a permission request
    Given a data_source tool "secrets" from provider "vault" declared safe with no key fields
    And a policy rule "ask-secrets" that asks for "secrets"
    And the model answers request 1 with calls secrets(name "db")
    And the model answers request 2 with text "Understood."
    When the session runs
    Then the frontend received no permission request
    And the tool "secrets" was never invoked
    And model request 2 holds a denial for the call to "secrets"

  @PA-06 @must
  Scenario: a deny rule naming an interactive tool stops it before the frontend sees it
    Policy kind matching knows only resource and data_source, so the rule
    names the interactive tool.
    Given an interactive tool "confirm" from provider "ui"
    And a policy rule "no-confirm" that denies "confirm"
    And the model answers request 1 with calls confirm(question "go?")
    And the model answers request 2 with text "Understood."
    When the session runs
    Then the frontend received no interactive request
    And model request 2 holds a denial for the call to "confirm"

  @PA-08 @must
  Scenario: an asked item runs only after the frontend allows it
    The frontend takes 300 ms to answer; the call must not be invoked before
    the answer has been given.
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And the frontend answers permission for "save" with ALLOW after 300 ms
    And the model answers request 1 with calls save(key "k")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the frontend was asked about "save" 1 time
    And the tool "save" was invoked only after the frontend had answered about it
    And model request 2 holds an ordinary result for the call to "save"

  @PA-08 @must
  Scenario: an asked item the frontend denies never runs and the model gets a denial
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And the frontend answers permission for "save" with DENY after 300 ms
    And the model answers request 1 with calls save(key "k")
    And the model answers request 2 with text "Understood."
    When the session runs
    Then the frontend was asked about "save" 1 time
    And the tool "save" was never invoked
    And model request 2 holds a denial for the call to "save"

  @PA-09 @must
  Scenario Outline: a downgraded ask on <a kind> call is reported differently from a plain deny
    The marker may be an ask_downgrade event naming the call or a denial
    text saying the ask was downgraded; either way it names the rule and the
    call's kind, so that a log tells the downgrade from an ordinary deny.
    Given <asked tool>
    And <denied tool>
    And a policy rule "ask-<asked>" that asks for "<asked>"
    And a policy rule "no-<denied>" that denies "<denied>"
    And the model answers request 1 with calls <asked>(<arg> "x"), <denied>(<arg> "y")
    And the model answers request 2 with text "Understood."
    When the session runs
    Then the kernel reported the "<asked>" call as a downgraded ask and the "<denied>" call as a plain deny
    And model request 2 holds a denial for the call to "<asked>"
    And model request 2 holds a denial for the call to "<denied>"

    Examples:
      | a kind         | asked | denied | arg      | asked tool                                                                 | denied tool                                                              |
      | a data_source  | grep  | cat    | pattern  | a data_source tool "grep" from provider "fs" declared safe with no key fields | a data_source tool "cat" from provider "fs" declared safe with no key fields |
      | an interactive | ask   | tell   | question | an interactive tool "ask" from provider "ui"                               | an interactive tool "tell" from provider "ui"                            |

  @PA-10 @must
  Scenario: with no matching rule a resource call asks, reads and interactive calls run
    Given a data_source tool "look" from provider "kb" declared safe with no key fields
    And an interactive tool "confirm" from provider "ui"
    And a resource tool "save" from provider "store"
    And the model answers request 1 with calls look(q "a"), confirm(question "ok?"), save(key "b")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the frontend was asked about "save" 1 time
    And the frontend was never asked about "look" and "confirm"
    And the tool "look" was invoked 1 time
    And the frontend received 1 interactive request for "confirm"

  @PA-11 @PA-13 @must
  Scenario: only the resource item gets a preview, taken with the rest of the item when the plan is built
    Every tool implements tool/preview. The item's kind, risk, description and
    preview must be those the tool gave when the plan was built. That they are
    never looked up again later (say, after the provider changed its schema)
    cannot be observed: the tools are declared once in the session config.
    Given a data_source tool "look" from provider "kb" declared safe with no key fields
    And an interactive tool "confirm" from provider "ui"
    And a resource tool "save" from provider "store"
    And the tool "save" has risk "high" and description "Saves a record to the store"
    And the tool "look" offers a preview
    And the tool "confirm" offers a preview
    And the tool "save" offers a preview
    And a policy rule "ask-save" that asks for "save"
    And the model answers request 1 with calls look(q "a"), confirm(question "ok?"), save(key "b")
    And the model answers request 2 with text "Done."
    When the session runs
    Then no preview was requested or stored for "look" and "confirm"
    And the permission request for "save" carried the kind, risk, description and preview the tool gave at plan time

  @PA-13 @must
  Scenario: the plan-ready chain sees each item as its tool declares it, with nobody asked
    The other side of the snapshot: a policy rule allows the call, so no
    permission request shows the item, and no tool offers a preview; the
    veto subscriber still sees the kind, risk and description the tool
    declares.
    Given a resource tool "save" from provider "store"
    And the tool "save" has risk "high" and description "Saves a record to the store"
    And a policy rule "allow-save" that allows "save"
    And a veto subscriber "V" at "plan-ready" that allows
    And the model answers request 1 with call save(key "b")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the plan-ready payload "V" received carried the kind, risk and description "save" declares

  @PA-12 @must
  Scenario Outline: a preview that <how> leaves the item without one, and the human still sees the input
    For the hang, the permission request must come by the kernel's preview
    deadline (reading plan.preview_timeout_ms; 10 s when undeclared, since
    the spec names no value) plus the larger of 1 s and a quarter of it.
    Given a resource tool "save" from provider "store"
    And the tool "save" offers a preview that <how>
    And a policy rule "ask-save" that asks for "save"
    And the model answers request 1 with calls save(key "k")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the permission request for "save" carried no preview but the call's input
    And the permission request for "save" did not wait past the kernel's preview deadline
    And the tool "save" was invoked 1 time
    And the session ends with status "completed"

    Examples:
      | how               |
      | fails             |
      | hangs             |
      | is not implemented |

  @PA-12 @must
  Scenario: a preview the tool does not implement is not an error
    Given a resource tool "save" from provider "store"
    And the tool "save" offers a preview that is not implemented
    And a policy rule "ask-save" that asks for "save"
    And the model answers request 1 with calls save(key "k")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the permission request for "save" carried no preview but the call's input
    And the kernel reported no error event
    And the session ends with status "completed"

  @PA-14 @must
  Scenario: every resource call has its plan_item row, also those decided without asking
    The first item has a preview, so that its plan is built with previews.
    Given a resource tool "save" from provider "store"
    And a resource tool "drop" from provider "store"
    And the tool "save" offers a preview
    And a policy rule "save-ok" that allows "save"
    And a policy rule "no-drop" that denies "drop"
    And the model answers request 1 with calls save(key "1"), drop(key "2"), save(key "3")
    And the model answers request 2 with text "Done."
    When the session runs
    Then turn 1 wrote one plan_item row per resource call before asking about or applying any of them
    And the plan_item rows of turn 1 record these decisions:
      | tool | decision |
      | save | allow    |
      | drop | deny     |

  @PA-15 @must
  Scenario: an interactive call goes to the frontend as an interactive request, not through the approval gate
    Whether the provider's invoke is involved is not asserted (A-32).
    Given an interactive tool "confirm" from provider "ui"
    And the interactive tool "confirm" is answered with "yes, go ahead"
    And the model answers request 1 with calls confirm(question "Proceed?")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the interactive request for "confirm" carried its call id, the tool name and a prompt
    And the frontend received no permission request
    And model request 2 holds "yes, go ahead" as the result of the call to "confirm"

  @PA-16 @must
  Scenario: a second connection's decision after the first one took effect is rejected
    The primary frontend connection allows the item; while the allowed call
    runs, a second connection sends DENY for the same item with
    frontend/decide. The late DENY must be answered with INVALID_CLIENT_EVENT
    and change nothing: the call ran once and its result is not a denial.
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And the frontend answers permission for "save" with ALLOW
    And a second frontend connection decides "save" with DENY while the tool runs
    And the model answers request 1 with calls save(key "k")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's decision on "save" was rejected as an invalid client event
    And the tool "save" was invoked 1 time
    And model request 2 holds an ordinary result for the call to "save"

  @PA-16 @must
  Scenario: a second connection's DENY while the permission request is pending wins over the primary's later ALLOW
    The primary connection holds its answer until the kernel has answered
    the second connection's DENY. The DENY came first, so it decides the
    item; the primary's ALLOW is late. The kernel may withdraw the permission
    request or reject the late ALLOW with a frontend_error event, but the
    ALLOW must not take effect.
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And a second frontend connection decides "save" with DENY before the frontend answers ALLOW
    And the model answers request 1 with calls save(key "k")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's decision on "save" was accepted
    And the tool "save" was invoked 0 times
    And model request 2 holds a denial for the call to "save"
    And the frontend's late answer about "save" was withdrawn by the kernel or rejected with a frontend_error event naming connection "primary"

  @PA-16 @must
  Scenario: an item allowed by two connections is applied once
    The second connection's ALLOW comes first and decides the item; the
    primary's ALLOW for the same item is late and must not apply it again.
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And a second frontend connection decides "save" with ALLOW before the frontend answers ALLOW
    And the model answers request 1 with calls save(key "k")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's decision on "save" was accepted
    And the tool "save" was invoked 1 time
    And model request 2 holds an ordinary result for the call to "save"
    And the frontend's late answer about "save" was withdrawn by the kernel or rejected with a frontend_error event naming connection "primary"

  @PA-16 @must
  Scenario: a second connection's answer to a waiting interactive call wins over the primary's later answer
    The primary connection holds its answer to the interactive request until
    the kernel has answered the second connection, which answered the same
    call with frontend/decide. That answer came first, so it is the call's
    result; the primary's answer is late. The kernel may withdraw the
    interactive request or reject the late answer with a frontend_error
    event, but the late answer must not become the result.
    Given an interactive tool "confirm" from provider "ui"
    And a second frontend connection answers the interactive tool "confirm" with "yes, from the second screen" before the frontend answers "no, from the primary"
    And the model answers request 1 with calls confirm(question "Proceed?")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's answer to "confirm" was accepted
    And model request 2 holds "yes, from the second screen" as the result of the call to "confirm"
    And the frontend's late interactive answer to "confirm" was withdrawn by the kernel or rejected with a frontend_error event naming connection "primary"

  @PA-17 @must
  Scenario Outline: a valid corrected input replaces the call's arguments (<schema>)
    A tool without an input_schema takes any JSON object.
    Given a resource tool "save" from provider "store"
    And <schema>
    And a policy rule "ask-save" that asks for "save"
    And the frontend answers permission for "save" with ALLOW and corrected input key "fixed"
    And the model answers request 1 with calls save(key "typo")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the tool "save" ran with input key "fixed"
    And the tool "save" never ran with input key "typo"

    Examples:
      | schema                                   |
      | the tool "save" requires a string "key"  |
      | the tool "save" declares no input schema |

  @PA-17 @must
  Scenario: a corrected input that fails the input schema is refused with an error and the item stays pending
    The kernel must neither coerce the bad correction nor turn it into a
    deny; it reports an error naming the item, which stays pending until a
    usable decision comes (A-37: asked again, or, reading
    plan.refused_decision = pending, sent by another connection).
    Given a resource tool "save" from provider "store"
    And the tool "save" requires a string "key"
    And a policy rule "ask-save" that asks for "save"
    And the frontend first answers permission for "save" with ALLOW and corrected input key 42
    And the frontend then answers permission for "save" with ALLOW and corrected input key "fixed"
    And the model answers request 1 with calls save(key "typo")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the kernel refused the corrected input for "save" with an error naming its plan item
    And the tool "save" never ran with input key 42
    And the tool "save" ran with input key "fixed"
    And model request 2 holds an ordinary result for the call to "save"

  @PA-18 @must
  Scenario Outline: an <answer> for the session is remembered for later calls, and a new session asks again
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And the frontend answers permission for "save" with <answer> and scope SESSION
    And the model answers request 1 with calls save(key "1")
    And the model answers request 2 with calls save(key "2")
    And the model answers request 3 with calls save(key "3")
    And the model answers request 4 with text "Done."
    When the session runs
    Then the frontend was asked about "save" 1 time
    And the tool "save" was invoked <runs> times
    And every call to "save" has a plan_item row
    When a second session runs under the same profile
    Then the second session asked the frontend about "save" 1 time
    And the tool "save" was invoked <runs> times in the second session

    Examples:
      | answer | runs |
      | ALLOW  | 3    |
      | DENY   | 0    |

  @PA-18 @must
  Scenario: with a writable policy store, an ALLOW for the session still ends with its session
    A kernel that keeps SESSION answers with the ones it persists hands one
    session's answer to the next session of the profile.
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And the kernel has a writable policy store
    And the session uses a profile of its own
    And the frontend answers permission for "save" with ALLOW and scope SESSION
    And the model answers request 1 with calls save(key "1")
    And the model answers request 2 with calls save(key "2")
    And the model answers request 3 with text "Done."
    When the session runs
    Then the frontend was asked about "save" 1 time
    When a second session runs under the same profile
    Then the second session asked the frontend about "save" 1 time
    And the tool "save" was invoked 2 times in the second session

  @PA-18 @must
  Scenario: a verdict for the session covers its own tool only, and a ONCE answer only its own item
    Both tools belong to one provider; the SESSION answer about "save" must
    not decide "drop", whose ONCE answers are asked for every call.
    Given a resource tool "save" from provider "store"
    And a resource tool "drop" from provider "store"
    And a policy rule "store-ask" that asks for the tools of provider "store"
    And the frontend answers permission for "save" with ALLOW and scope SESSION
    And the frontend answers permission for "drop" with ALLOW and scope ONCE
    And the model answers request 1 with calls save(key "1"), drop(key "1")
    And the model answers request 2 with calls save(key "2"), drop(key "2")
    And the model answers request 3 with text "Done."
    When the session runs
    Then the frontend was asked about "save" 1 time
    And the frontend was asked about "drop" 2 times
    And the tool "save" was invoked 2 times
    And the tool "drop" was invoked 2 times

  @PA-19 @must
  Scenario Outline: an <answer> for always is stored as policy for later sessions of the profile
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And the kernel has a writable policy store
    And the session uses a profile of its own
    And the frontend answers permission for "save" with <answer> and scope ALWAYS
    And the model answers request 1 with calls save(key "1")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the frontend was asked about "save" 1 time
    When a second session runs under the same profile
    Then the second session asked the frontend about "save" 0 times
    And the tool "save" was invoked <runs> time in the second session

    Examples:
      | answer | runs |
      | ALLOW  | 1    |
      | DENY   | 0    |

  @PA-19 @must
  Scenario: without a policy store an ALLOW for always is refused with an error, never quietly shortened
    The refused item stays pending until a usable decision comes (A-37: the
    kernel asks again, or, reading plan.refused_decision = pending, takes it
    from another connection); a later call to the same tool is asked about
    too, since nothing was remembered.
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And the frontend first answers permission for "save" with ALLOW and scope ALWAYS
    And the frontend then answers permission for "save" with ALLOW and scope ONCE
    And the model answers request 1 with calls save(key "1")
    And the model answers request 2 with calls save(key "2")
    And the model answers request 3 with text "Done."
    When the session runs
    Then the kernel refused the ALWAYS answer for "save" with an error naming its plan item
    And the frontend was asked about every call to "save"
    And the tool "save" was invoked 2 times
