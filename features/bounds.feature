Feature: Loop bounds and the limit-reached path
  max_turns caps the ordinary turns of a session. When it fires, the kernel
  runs exactly one more turn with the tool specs withheld and an instruction
  of its own asking for a final answer, then ends the session with a status
  naming the bound. It is never an unrecoverable error. Each check names the
  clause it proves: how many ordinary turns ran is the bound's own (TA-02),
  that one final-answer turn followed is TA-08's and TA-21's, the shape of
  its request TA-20's, and that nothing ran after it TA-21's (A-08).

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And the model answers every request with a call to "search" whose query changes each time

  @TA-02 @TA-08 @TA-20 @TA-21 @must
  Scenario Outline: max_turns <n> ends the loop after one final-answer turn
    Given the session allows at most <n> turns
    When the session runs
    Then the kernel ran <n> ordinary <turns>
    And exactly one final-answer turn followed
    And the final-answer request offered no tools
    And the final-answer request carried an instruction the harness did not send
    And the final-answer request still holds the results of every earlier tool call
    And no tool ran after the final-answer request
    And the status names the bound: "error_max_turns"

    Examples:
      | n | turns |
      | 1 | turn  |
      | 2 | turns |
      | 3 | turns |
      | 5 | turns |

  @TA-02 @TA-08 @must
  Scenario: max_turns works on its own beside loose cost and time bounds
    Given the session allows at most 3 turns
    And the session also has a cost bound of $1000 and a wall-clock bound of 600 seconds
    When the session runs
    Then the kernel ran 3 ordinary turns
    And exactly one final-answer turn followed

  @TA-21 @must
  Scenario: the status naming the bound is the same in every place the kernel reports it
    Given the session allows at most 2 turns
    And an observe subscriber "E" at "session-end"
    When the session runs
    Then the status names the bound: "error_max_turns"
    And the session-end payload and the last session_meta row name the same bound

  @TA-02 @must
  Scenario: every bound is optional: a config that sets none runs until the model is done
    An absent bound is unbounded. The model is done at its third request,
    fewer turns than any loop's own default cap.
    Given the session config sets no bound at all
    And the model answers request 1 with call search(query "a")
    And the model answers request 2 with call search(query "b")
    And the model answers request 3 with text "Found it."
    When the session runs
    Then the kernel accepted the config without bounds and the session ended "completed" after 3 model requests
