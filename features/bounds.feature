Feature: Loop bounds and the limit-reached path
  max_turns caps the ordinary turns of a session. When it fires, the kernel
  runs exactly one more turn with the tool specs withheld and an instruction
  of its own asking for a final answer, then ends the session with a status
  naming the bound. It is never an unrecoverable error.

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And the model answers every request with a call to "search" whose query changes each time

  @TA-02 @TA-08 @TA-20 @TA-21 @must
  Scenario Outline: max_turns <n> ends the loop after one final-answer turn
    Given the session allows at most <n> turns
    When the session runs
    Then the model was asked <asked> times
    And model request <asked> offered no tools
    And model request <asked> carried an instruction the harness did not send
    And model request <asked> still holds the results of every earlier tool call
    And no tool ran after model request <asked>
    And the session ends with status "error_max_turns"

    Examples:
      | n | asked |
      | 1 | 2     |
      | 3 | 4     |
      | 5 | 6     |

  @TA-02 @TA-08 @must
  Scenario: max_turns works on its own beside loose cost and time bounds
    Given the session allows at most 3 turns
    And the session also has a cost bound of $1000 and a wall-clock bound of 600 seconds
    When the session runs
    Then the model was asked 4 times
    And model request 4 offered no tools
    And the session ends with status "error_max_turns"

  @TA-21 @must
  Scenario: the status naming the bound is the same in every place the kernel reports it
    Given the session allows at most 2 turns
    And an observe subscriber "E" at "session-end"
    When the session runs
    Then the session ends with status "error_max_turns"
    And the session-end payload carries the final status
    And the last session_meta row carries the final status
