Feature: Hook dispatch order and payload flow
  At every hook point the kernel calls the subscribers declared for that
  point once, in the order they were declared, with observe, transform and
  veto subscribers mixed in that single order. Each subscriber receives the
  payload as the transforms before it left it, and the kernel goes on with
  what the last transform returned. The harness's transforms mark their
  change by appending a message whose text is a marker ("A", "B"), so a
  payload shows which transforms it has been through.

  @HD-01 @HD-09 @must
  Scenario: a mixed chain runs in declaration order and each subscriber sees the transforms before it
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour   |
      | T1         | transform | appends "A" |
      | O1         | observe   |             |
      | T2         | transform | appends "B" |
      | O2         | observe   |             |
    And the model answers request 1 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the subscribers at "pre-model-call" were dispatched in this order: "T1", "O1", "T2", "O2"
    And in the first "pre-model-call" chain the subscribers saw these markers:
      | subscriber | markers  |
      | T1         |          |
      | O1         | "A"      |
      | T2         | "A"      |
      | O2         | "A", "B" |
    And model request 1 carried the hook markers "A", "B"
    And model request 1 carried exactly the messages "T2" returned
    And no hook_error event was reported

  @HD-01 @must
  Scenario: reversing the declaration reverses the dispatch order and the payload flow
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour   |
      | O2         | observe   |             |
      | T2         | transform | appends "B" |
      | O1         | observe   |             |
      | T1         | transform | appends "A" |
    And the model answers request 1 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the subscribers at "pre-model-call" were dispatched in this order: "O2", "T2", "O1", "T1"
    And in the first "pre-model-call" chain the subscribers saw these markers:
      | subscriber | markers |
      | O2         |         |
      | T2         |         |
      | O1         | "B"     |
      | T1         | "B"     |
    And model request 1 carried the hook markers "B", "A"

  @HD-01 @must
  Scenario: at plan-ready the three modes keep their declared order
    Given a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And these hook subscribers at "plan-ready", in this order:
      | subscriber | mode      | behaviour |
      | V1         | veto      | allows    |
      | O1         | observe   |           |
      | T1         | transform |           |
      | V2         | veto      | allows    |
      | O2         | observe   |           |
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the subscribers at "plan-ready" were dispatched in this order: "V1", "O1", "T1", "V2", "O2"

  @HD-06 @must
  Scenario: a transform is dispatched only after the transform before it has answered
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour                | timeout ms |
      | T1         | transform | appends "A" after 300 ms | 6000       |
      | T2         | transform | appends "B"              |            |
    And the model answers request 1 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And "T2" was dispatched only after "T1" had answered
    And model request 1 carried the hook markers "A", "B"

  @HD-06 @must
  Scenario: a veto is dispatched only after the transform or veto before it has answered
    The vetoes sit at plan-ready, the one point every reading gives a veto
    (A-20).

    Given a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And these hook subscribers at "plan-ready", in this order:
      | subscriber | mode      | behaviour             | timeout ms |
      | T1         | transform | answers after 300 ms  | 6000       |
      | V1         | veto      | allows after 300 ms   | 6000       |
      | V2         | veto      | allows                |            |
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And "V1" was dispatched only after "T1" had answered
    And "V2" was dispatched only after "V1" had answered

  @HD-07 @may
  Scenario: adjacent observers may be in flight together
    Given these hook subscribers at "post-model-response", in this order:
      | subscriber | mode    |
      | O1         | observe |
      | O2         | observe |
      | O3         | observe |
    And hook subscribers "O1", "O2" and "O3" wait for each other at a barrier
    And the model answers request 1 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the subscribers at the barrier were all in flight together

  @HD-15 @must
  Scenario Outline: an observer between two transforms never runs ahead of either (the observer <behaviour>)
    The observer starts only once the first transform has answered and sees
    exactly its output; the second transform gets that same output, whatever
    the observer does. Whether the kernel waits for the observer before
    calling the second transform is not asserted: the spec only forbids the
    observer to run ahead or to change what the second transform receives.
    The first transform's 300 ms hold sits 20 times inside its own timeout,
    so a loaded machine never turns it into a timed-out transform.

    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour                | timeout ms |
      | T1         | transform | appends "A" after 300 ms | 6000       |
      | O          | observe   | <behaviour>              | 500        |
      | T2         | transform | appends "B"              |            |
    And the model answers request 1 with text "Finished."
    When the session runs
    Then "O" was dispatched only after "T1" had answered
    And "O" received the payload "T1" returned
    And "T2" received the payload "T1" returned

    Examples:
      | behaviour |
      | answers   |
      | fails     |
      | hangs     |

  @HD-17 @must
  Scenario: context-assemble is the context/assemble call, and every dispatch names its point
    The context-assemble point is served by context/assemble, once per turn
    and before that turn's pre-model-call chain; no hook/dispatch ever
    concerns it, every dispatch carries the payload variant of its own
    point, and the model request carries exactly the contributions. (That
    it carries exactly the transformed messages is the payload flow's,
    HD-01.)

    Given a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And an observe subscriber "O" at every hook point
    And a transform subscriber "T" at "pre-model-call" that appends "A"
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And no hook dispatch concerned "context-assemble"
    And context/assemble was sent once per turn, before that turn's pre-model-call dispatches and model request
    And every hook dispatch carried the payload variant of its point
    And every model request carried the context contributions of its turn
