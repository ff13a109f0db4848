Feature: One session
  A single scenario, for hostile kernels whose every session costs the
  scenario timeout.

  @TA-10 @must
  Scenario: the kernel runs one session
    Given the model answers request 1 with text "Hello."
    When the session runs
    Then the model was asked 1 time
    And the session ends with status "completed"
