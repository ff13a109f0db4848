Feature: The max_wall_clock_s bound
  max_wall_clock_s caps a session's elapsed time and is configured on its
  own. It is a number, so a test can use a fraction of a second. The clock
  is read at step 17, so a turn may run past the bound before it fires
  (A-09). A tool held by the harness gives a turn a known minimum length;
  the checks assert lower bounds from the recorded arrival times and keep
  every upper bound generous. A kernel that does not declare
  bound.max_wall_clock_s is skipped here (SHOULD).

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And a data_source tool "wait" from provider "clock" declared safe with no key fields

  @TA-04 @should
  Scenario: a quarter-second bound fires at the end of the turn that crosses it
    Given the model answers every request with a call to "wait" whose ticket changes each time
    And the session allows at most 50 turns
    And the session has a wall-clock bound of 0.25 seconds
    And the tool "wait" is held until 0.4 seconds after the session started
    When the session runs
    Then the model was asked 2 times
    And model request 2 came at least 0.25 seconds after the session started
    And model request 2 offered no tools
    And model request 2 carried an instruction the harness did not send
    And the session ends with status "error_max_wall_clock"

  @TA-04 @should
  Scenario: the bound does not fire while time is left, even when it is under a second
    Given the model answers request 1 with call search(query "one")
    And the model answers request 2 with call search(query "two")
    And the model answers request 3 with call wait(ticket "three")
    And the model answers request 4 with call search(query "four")
    And the session allows at most 50 turns
    And the session has a wall-clock bound of 1.2 seconds
    And the tool "wait" is held until 1.4 seconds after the session started
    When the session runs
    Then the model was asked 4 times
    And model request 4 came at least 1.2 seconds after the session started
    And model request 4 offered no tools
    And the session ends with status "error_max_wall_clock"
