Feature: Hook dispatch instrumentation
  With telemetry on, each chain of dispatches at a hook point is traced as
  one hook_dispatch span with one hook_subscriber child for each
  subscriber actually called: fewer after a short-circuit, and concurrent
  observers as siblings under the same parent. A chain inside a turn is
  traced inside that turn's span.

  @HD-13 @must
  Scenario: one span per chain and one child per subscriber called
    Given a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And telemetry is on
    And an observe subscriber "S" at "session-start"
    And these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour   |
      | T1         | transform | appends "A" |
      | O1         | observe   |             |
      | O2         | observe   |             |
    And these hook subscribers at "plan-ready", in this order:
      | subscriber | mode | behaviour |
      | V1         | veto | denies    |
      | V2         | veto | allows    |
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And every hook chain was traced as one hook_dispatch span with one hook_subscriber span per subscriber called
    And every hook_dispatch span of a turn lies within that turn's span

  @HD-13 @must
  Scenario: observers in flight together are traced as sibling spans
    The two observers wait for each other at a barrier, so a kernel that
    calls adjacent observers together (HD-07 allows it) has both in flight
    at once; their subscriber spans must be siblings under the chain's
    span. A kernel that calls them one by one waits out the barrier and is
    judged the same.
    Given telemetry is on
    And these hook subscribers at "post-model-response", in this order:
      | subscriber | mode    |
      | O1         | observe |
      | O2         | observe |
    And hook subscribers "O1" and "O2" wait for each other at a barrier
    And the model answers request 1 with text "Finished."
    When the session runs
    Then every hook chain was traced as one hook_dispatch span with one hook_subscriber span per subscriber called
