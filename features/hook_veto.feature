Feature: Veto subscribers and the kernel's own policy
  A veto subscriber answers ALLOW or DENY. Anything other than ALLOW ends
  the chain at that point, and the subscribers declared after it never
  receive the dispatch. At plan-ready a deny keeps every resource item of
  the plan from being applied, and the model learns of it through denial
  results. The kernel's own policy is not a subscriber: it decides every
  plan item inside the kernel, hooks or no hooks.

  Background:
    Given a resource tool "write" from provider "fs"

  @HD-11 @must
  Scenario: a deny skips every subscriber declared after it
    Given a policy rule "allow-write" that allows "write"
    And these hook subscribers at "plan-ready", in this order:
      | subscriber | mode    | behaviour |
      | V1         | veto    | denies    |
      | V2         | veto    | allows    |
      | O3         | observe |           |
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And hook subscribers "V2" and "O3" were never dispatched
    And no tool/invoke of "write" reached the harness
    And model request 2 carried a denial result for every "write" call

  @HD-11 @HD-14 @must
  Scenario Outline: a veto's DENY is its answer, not its failure (the veto <behaviour>)
    PROTOCOL.md §7.2: a veto is expected to answer ALLOW or DENY, its reason
    being optional. A DENY, with a reason or without one, ends the chain,
    denies the call, and is no failure of the subscriber: the hook_error of
    §8.4 records a subscriber that failed, so none names "V1". The
    observer "W" really fails at session-start, as a witness: a kernel that
    records no failure at all shows nothing by its silence.
    Given a policy rule "allow-write" that allows "write"
    And an observe subscriber "W" at "session-start" that fails
    And these hook subscribers at "plan-ready", in this order:
      | subscriber | mode | behaviour   |
      | V1         | veto | <behaviour> |
      | V2         | veto | allows      |
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And hook subscriber "V2" was never dispatched
    And no tool/invoke of "write" reached the harness
    And model request 2 carried a denial result for every "write" call
    And no hook_error event names "V1", whose DENY was its answer and no failure, though the kernel recorded the failure of "W"

    Examples:
      | behaviour               |
      | denies                  |
      | denies without a reason |

  @HD-11 @must
  Scenario: at a veto point the kernel declares besides plan-ready, a deny ends the chain and keeps the call from running
    Which points besides plan-ready carry a veto is open (A-20). A kernel
    that declares pre-tool-call among its hooks.veto_points is held to it
    there as at plan-ready: the deny ends the chain, and the call it was
    dispatched for never runs. Undeclared, the scenario is skipped.
    Given the kernel declares "pre-tool-call" among its veto points
    And a policy rule "allow-write" that allows "write"
    And these hook subscribers at "pre-tool-call", in this order:
      | subscriber | mode    | behaviour |
      | V1         | veto    | denies    |
      | V2         | veto    | allows    |
      | O3         | observe |           |
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And hook subscribers "V2" and "O3" were never dispatched
    And no tool/invoke of "write" reached the harness
    And model request 2 carried a denial result for every "write" call

  @HD-11 @PA-03 @must
  Scenario: a DENY at plan-ready denies every resource item of the plan, each with a denial naming the subscriber
    Both items are allowed by the policy. The subscriber's DENY covers the
    whole plan (A-20): neither item is applied, and the model gets a denial
    result for each that names what decided it.
    Given a resource tool "edit" from provider "fs"
    And a policy rule "fs-ok" that allows the tools of provider "fs"
    And a veto subscriber "guard" at "plan-ready" that denies
    And the model answers request 1 with calls write(path "a"), edit(path "b")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then no tool/invoke of "write" reached the harness
    And no tool/invoke of "edit" reached the harness
    And model request 2 holds a denial with a reason for the call to "write"
    And model request 2 holds a denial with a reason for the call to "edit"

  @HD-08 @may
  Scenario: a third-party plugin declared as veto is consulted and its deny blocks the apply
    Given a policy rule "allow-write" that allows "write"
    And a veto subscriber "guard" at "plan-ready" that denies
    And hook subscriber "guard" is a third-party plugin
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the subscribers at "plan-ready" were dispatched in this order: "guard"
    And no tool/invoke of "write" reached the harness
    And model request 2 carried a denial result for every "write" call

  @HD-11 @must
  Scenario: a later veto's ALLOW cannot revive an item the policy denied
    The policy decides first: it denies "write" and allows "edit". The veto
    subscriber then allows the whole plan, which can only leave the kernel
    as strict as it was: "edit" is applied, "write" is not. Whether the
    policy's denial ends the chain before "V" (A-21) follows the kernel's
    reading hooks.policy_deny_ends_chain (default: it does not).

    Given a resource tool "edit" from provider "fs"
    And a policy rule "deny-write" that denies "write"
    And a policy rule "allow-edit" that allows "edit"
    And a veto subscriber "V" at "plan-ready" that allows
    And the model answers request 1 with calls write(path "a"), edit(path "b")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the plan-ready chain reached "V" unless the kernel declares that a policy denial ends it
    And no tool/invoke of "write" reached the harness
    And a tool/invoke of "edit" reached the harness
    And model request 2 carried a denial result for every "write" call

  @HD-08 @may
  Scenario: a third-party veto's ALLOW cannot revive an item the policy denied
    The policy runs first: it denies "write" and allows "edit". The
    third-party subscriber then allows the whole plan, which can only leave
    the kernel as strict as it was: "edit" is applied, "write" is not.
    Whether the policy's denial of one item ends the plan-ready chain (A-21)
    is the kernel's reading hooks.policy_deny_ends_chain; by default it does
    not, and the subscriber still sees the plan.

    Given a resource tool "edit" from provider "fs"
    And a policy rule "deny-write" that denies "write"
    And a policy rule "allow-edit" that allows "edit"
    And a veto subscriber "guard" at "plan-ready" that allows
    And hook subscriber "guard" is a third-party plugin
    And the model answers request 1 with calls write(path "a"), edit(path "b")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the plan-ready chain reached "guard" unless the kernel declares that a policy denial ends it
    And no tool/invoke of "write" reached the harness
    And a tool/invoke of "edit" reached the harness
    And model request 2 carried a denial result for every "write" call

  @HD-12 @must
  Scenario: with no hook blocks at all the kernel's policy still decides every plan item
    Given a resource tool "edit" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And a policy rule "ask-edit" that asks for "edit"
    And the model answers request 1 with calls write(path "a"), edit(path "b")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And a plan_item event for tool "write" with decided_by naming "allow-write" was reported
    And a plan_item event for tool "edit" with decided_by naming "ask-edit" was reported
    And a frontend/permission request for "edit" reached the harness
    And no hook dispatch reached the harness
