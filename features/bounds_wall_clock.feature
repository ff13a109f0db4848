Feature: The max_wall_clock_s bound
  max_wall_clock_s caps a session's elapsed time and is configured on its
  own. It is a number, so a test can use a fraction of a second. The clock
  is read at step 17, so a turn may run past the bound before it fires
  (A-09). A tool held by the harness gives a turn a known minimum length,
  measured from the moment the kernel's session clock has certainly started
  (its first message, or the start it reports in session_meta); every
  deadline keeps a margin of a second on each side (five where turns
  before the bound must take no time), and the lower bounds are
  read from the recorded arrival times. A kernel that does not declare
  bound.max_wall_clock_s is skipped here (SHOULD).

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And a data_source tool "wait" from provider "clock" declared safe with no key fields

  @TA-04 @TA-08 @TA-20 @should
  Scenario: a quarter-second bound fires at the end of the turn that crosses it
    Given the model answers every request with a call to "wait" whose ticket changes each time
    And the session allows at most 12 turns
    And the session has a wall-clock bound of 0.25 seconds
    And the tool "wait" is held until 1.25 seconds after the session started
    When the session runs
    Then the kernel ran 1 ordinary turn
    And exactly one final-answer turn followed
    And the final-answer request came at least 0.25 seconds after the session started
    And the final-answer request offered no tools
    And the final-answer request carried an instruction the harness did not send
    And the status names the bound: "error_max_wall_clock"

  @TA-04 @TA-08 @should
  Scenario: the bound does not fire while time is left
    Turns 1 and 2 take no time; turn 3 is held until five seconds after the
    bound, so the bound fires at its end and not before (at a load of 55 a
    one-second bound ran out in turn 1).
    Given the model answers request 1 with call search(query "one")
    And the model answers request 2 with call search(query "two")
    And the model answers request 3 with call wait(ticket "three")
    And the model answers request 4 with call search(query "four")
    And the session allows at most 12 turns
    And the session has a wall-clock bound of 5 seconds
    And the tool "wait" is held until 10 seconds after the session started
    When the session runs
    Then the kernel ran 3 ordinary turns
    And exactly one final-answer turn followed
    And the final-answer request came at least 5 seconds after the session started
    And the status names the bound: "error_max_wall_clock"
