Feature: Doom-loop detection
  The kernel itself, not a tool or model plugin, notices a model repeating a
  functionally identical call: it hashes the tool name with the canonical
  JSON of the input (key order and whitespace do not matter, any change of
  a value does) over the session's sequence of read and resource calls,
  and when the last threshold entries are identical it takes the
  limit-reached path: one final-answer turn without tools, not an error.
  The threshold is configurable and defaults to a value from 3 to 5. The
  doom-loop ending has no status of its own (A-06): the checks accept the
  status the kernel declares as its reading doom_loop.status, and without a
  declaration any of the bound subtypes. completed is accepted but recorded
  as suspicious; failed never is (a fired bound is not an error, TA-08),
  nor running or cancelled. The scenarios about the limit path repeat a
  byte-identical call, so that canonical JSON stays TA-12's own question.

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And the session allows at most 10 turns

  @TA-12 @must
  Scenario: with the default threshold the same call, its keys reordered, ends the loop after 3 to 5 repeats
    The number of identical calls before the final-answer turn is the
    kernel's default threshold; it must lie in 3..5 and match the reading
    doom_loop.default_threshold when the kernel declares one.
    Given the model answers every request with the same call to "search", its keys in a different order each time
    When the session runs
    Then the doom-loop detector fired after between 3 and 5 identical calls, as the kernel declares

  @TA-12 @must
  Scenario: calls whose arguments change every time never trip the detector
    Given the model answers every request with a call to "search" whose query changes each time
    When the session runs
    Then the kernel ran 10 ordinary turns

  @TA-12 @must
  Scenario: the tool name is part of the call's identity: one input to two tools never trips the detector
    Given a data_source tool "lookup" from provider "kb" declared safe with no key fields
    And the doom-loop threshold is 3
    And the model makes these calls, one per request:
      | tool   | input          |
      | search | {"q":"same"}   |
      | lookup | {"q":"same"}   |
      | search | {"q":"same"}   |
      | lookup | {"q":"same"}   |
      | search | {"q":"same"}   |
      | lookup | {"q":"same"}   |
    And the model answers request 7 with text "Nothing more to look up."
    When the session runs
    Then the kernel ran 7 ordinary turns

  @TA-12 @TA-26 @TA-08 @TA-20 @must
  Scenario Outline: a configured threshold of <threshold> takes the limit path right after the <threshold>th identical call
    Given the doom-loop threshold is <threshold>
    And the model answers every request with the same call to "search"
    When the session runs
    Then the kernel ran <threshold> ordinary turns
    And exactly one final-answer turn followed
    And the final-answer request offered no tools
    And the final-answer request carried an instruction the harness did not send
    And the final-answer request still holds the results of every earlier tool call
    And the session ends with the kernel's doom-loop status

    Examples:
      | threshold |
      | 2         |
      | 3         |
      | 4         |
      | 5         |

  @TA-26 @must
  Scenario Outline: a window_size of <window> calls leaves the threshold of 3 in charge
    window_size is the number of calls the detector looks back over and may
    be as small as the threshold (A-05: only the threshold drives the hash
    tier); a kernel that refuses a window equal to its threshold refuses a
    setting the config allows.
    Given the doom-loop threshold is 3
    And the doom-loop detector looks back over <window> calls
    And the model answers every request with the same call to "search"
    When the session runs
    Then the kernel ran 3 ordinary turns
    And exactly one final-answer turn followed
    And the session ends with the kernel's doom-loop status

    Examples:
      | window |
      | 3      |
      | 8      |

  @TA-26 @must
  Scenario: one identical call short of the threshold does not fire
    Given the doom-loop threshold is 3
    And the model calls "search" in successive requests with query "a", "a", "b", "b", "c" and "c"
    And the model answers request 7 with text "Nothing more to search."
    When the session runs
    Then the kernel ran 7 ordinary turns
    And the session ends with status "completed"

  @TA-26 @must
  Scenario: a different call in between starts the count again
    Given the doom-loop threshold is 3
    And the model calls "search" in successive requests with query "a", "a", "b", "a", "a" and "a"
    When the session runs
    Then the kernel ran 6 ordinary turns
    And exactly one final-answer turn followed
    And the session ends with the kernel's doom-loop status

  @TA-26 @must
  Scenario: a different call in between starts the count again, in a window wider than the threshold
    A window of 8 calls still holds the two "a" before the "b" when the
    third "a" after it comes; TA-26 fires on the latest threshold calls in
    a row, so a detector that counts the hash anywhere in its window fires
    two turns early. With the window equal to the threshold (above) the
    two readings cannot be told apart.
    Given the doom-loop threshold is 3
    And the doom-loop detector looks back over 8 calls
    And the model calls "search" in successive requests with query "a", "a", "b", "a", "a" and "a"
    When the session runs
    Then the kernel ran 6 ordinary turns
    And exactly one final-answer turn followed
    And the session ends with the kernel's doom-loop status

  @TA-12 @TA-26 @must
  Scenario: identical calls within one reply count one by one
    The detector hashes every read and resource call of the session in
    message order, so a reply that repeats a call adds each repeat.
    Given the doom-loop threshold is 3
    And the model answers request 1 with these calls:
      | tool   | input        |
      | search | {"q":"same"} |
      | search | {"q":"same"} |
    And the model answers request 2 with these calls:
      | tool   | input        |
      | search | {"q":"same"} |
    And the model answers request 3 with these calls:
      | tool   | input        |
      | search | {"q":"same"} |
    When the session runs
    Then the kernel ran 2 ordinary turns
    And exactly one final-answer turn followed
    And the session ends with the kernel's doom-loop status

  @TA-26 @must
  Scenario: the repeated call of a second tool fires the detector
    Given a data_source tool "lookup" from provider "kb" declared safe with no key fields
    And the doom-loop threshold is 3
    And the model makes these calls, one per request:
      | tool   | input          |
      | search | {"q":"first"}  |
      | lookup | {"id":7}       |
      | lookup | {"id":7}       |
      | lookup | {"id":7}       |
      | search | {"q":"never"}  |
    When the session runs
    Then the kernel ran 4 ordinary turns
    And exactly one final-answer turn followed
    And the session ends with the kernel's doom-loop status

  @TA-26 @must
  Scenario: a repeated resource call takes the limit path instead of failing the session
    Given a resource tool "save" from provider "fs"
    And a policy rule "allow-save" that allows "save"
    And the doom-loop threshold is 3
    And the model answers every request with the same call to "save"
    When the session runs
    Then the kernel ran 3 ordinary turns
    And the tool "save" was invoked 3 times
    And exactly one final-answer turn followed
    And the session ends with the kernel's doom-loop status

  @TA-13 @should
  Scenario: the model check catches calls that differ only in a counter
    After a window of calls the kernel asks the model, in a request of
    purpose loop_check, whether the session is looping; the fake model
    answers as PROTOCOL.md §7.3 says. A confident yes takes the limit path.
    Given the session allows at most 12 turns
    And the doom-loop model check looks at windows of 4 calls
    And the model's loop check answers that the session is looping with confidence 0.95
    And the model answers every request with a call to "search" whose query changes each time
    When the session runs
    Then the kernel asked the model whether the session is looping
    And the kernel asked whether the session is looping each time the window of calls filled
    And every loop check showed the model the calls of its window
    And every loop check asked the model for the agreed answer form
    And the session took the limit path before its turn bound
    And the session ends with the kernel's doom-loop status

  @TA-13 @should
  Scenario Outline: a yes with confidence <confidence> <form> takes the limit path
    PROTOCOL.md §7.3 fixes the answer: one JSON object in the reply's text,
    possibly with text around it, acted on when looping is true with a
    confidence of at least 0.8; a text streamed in pieces is one text.
    Given the session allows at most 12 turns
    And the doom-loop model check looks at windows of 3 calls
    And the model's loop check <answer> that the session is looping with confidence <confidence>
    And the model answers every request with a call to "search" whose query changes each time
    When the session runs
    Then the kernel asked the model whether the session is looping
    And the kernel asked whether the session is looping each time the window of calls filled
    And the session took the limit path before its turn bound
    And the session ends with the kernel's doom-loop status

    Examples:
      | confidence | form                             | answer                                    |
      | 0.8        | (the threshold itself)           | answers                                   |
      | 0.9        | with text around the JSON object | answers, with text around the JSON object, |
      | 0.85       | streamed in 3 text deltas        | answers in 3 text pieces                  |

  @TA-13 @should
  Scenario: a "not looping" answer lets the session go on
    Given the session allows at most 6 turns
    And the doom-loop model check looks at windows of 2 calls
    And the model's loop check answers that the session is not looping
    And the model answers every request with a call to "search" whose query changes each time
    When the session runs
    Then the kernel asked the model whether the session is looping
    And the kernel asked whether the session is looping each time the window of calls filled
    And every loop check showed the model the calls of its window
    And every loop check asked the model for the agreed answer form
    And the session reached its turn bound

  @TA-13 @should
  Scenario Outline: an unsure "looping" answer (confidence <confidence>) is not acted on
    Given the session allows at most 6 turns
    And the doom-loop model check looks at windows of 2 calls
    And the model's loop check answers that the session is looping with confidence <confidence>
    And the model answers every request with a call to "search" whose query changes each time
    When the session runs
    Then the kernel asked the model whether the session is looping
    And the kernel asked whether the session is looping each time the window of calls filled
    And the session reached its turn bound

    Examples:
      | confidence |
      | 0.3        |
      | 0.79       |

  @TA-13 @should
  Scenario: a window of one call asks after every call
    Given the session allows at most 4 turns
    And the doom-loop model check looks at windows of 1 call
    And the model's loop check answers that the session is not looping
    And the model answers every request with a call to "search" whose query changes each time
    When the session runs
    Then the kernel asked the model whether the session is looping
    And the kernel asked whether the session is looping each time the window of calls filled
    And every loop check showed the model the calls of its window
    And the session reached its turn bound

  @TA-13 @should
  Scenario: the window counts calls, not turns: two calls a turn fill a window of 4 in two turns
    The reading doom_loop.model_check_counts says what the window counts;
    a kernel that declares none may count calls or turns.
    Given the session allows at most 6 turns
    And the doom-loop model check looks at windows of 4 calls
    And the model's loop check answers that the session is not looping
    And the model answers every request with calls to "search" and "search", whose query changes each time
    When the session runs
    Then the kernel asked the model whether the session is looping
    And the kernel asked whether the session is looping each time the window of calls filled
    And every loop check showed the model the calls of its window
    And the session reached its turn bound

  @TA-13 @should
  Scenario: interactive calls do not fill the window of a kernel that counts the detector's calls
    Interactive calls are invisible to the doom-loop sequence (A-03); a
    kernel declaring doom_loop.model_check_counts = relevant_calls leaves
    them out of the window, one declaring calls counts them.
    Given an interactive tool "ask" from provider "ui"
    And the session allows at most 6 turns
    And the doom-loop model check looks at windows of 2 calls
    And the model's loop check answers that the session is not looping
    And the model answers every request with calls to "search" and "ask", whose query changes each time
    When the session runs
    Then the kernel asked the model whether the session is looping
    And the kernel asked whether the session is looping each time the window of calls filled
    And every loop check showed the model the calls of its window
    And the session reached its turn bound
