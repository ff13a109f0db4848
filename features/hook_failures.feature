Feature: Hook subscriber failures
  What a failing subscriber does depends on its mode. An observer's error,
  crash, timeout or unfit answer is recorded and otherwise ignored: the
  payload stays as it was and the chain goes on. A transform's failure, or
  an answer the kernel may not use, aborts the chain with a hook_error
  event that the kernel attributes to the subscriber, and the turn does not
  go on with the payload it had. A veto's failure counts as a deny.
  Timeouts in this file are set per subscriber to 1000 ms: a subscriber
  that fails or crashes answers at once, a full second before it, and a
  hanging one holds its call until the kernel cancels it (or 2 s pass), a
  second after it, so a loaded machine cannot turn one into the other.

  @HD-02 @must
  Scenario Outline: a failing observer changes nothing and does not stop the chain (the observer <behaviour>)
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour   | timeout ms |
      | T1         | transform | appends "A" |            |
      | O1         | observe   | <behaviour> | 1000       |
      | T2         | transform | appends "B" |            |
    And the model answers request 1 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the subscribers at "pre-model-call" were dispatched in this order: "T1", "O1", "T2"
    And "T2" received the payload "T1" returned
    And model request 1 carried the hook markers "A", "B"
    And an event attributable to hook subscriber "O1" was reported

    Examples:
      | behaviour |
      | fails     |
      | crashes   |
      | hangs     |

  @HD-10 @HD-02 @must
  Scenario Outline: an observer's unfit answer is ignored (the observer <behaviour>)
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour   |
      | T1         | transform | appends "A" |
      | O1         | observe   | <behaviour> |
      | T2         | transform | appends "B" |
    And the model answers request 1 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the subscribers at "pre-model-call" were dispatched in this order: "T1", "O1", "T2"
    And "T2" received the payload "T1" returned
    And model request 1 carried the hook markers "A", "B"
    And an event attributable to hook subscriber "O1" was reported

    Examples:
      | behaviour                                          |
      | answers with an outcome that does not fit its mode |
      | answers with a malformed result                    |
      | appends "X"                                        |

  @HD-03 @HD-14 @must
  Scenario Outline: a failing transform aborts the chain with a hook_error and the turn stops (the transform <behaviour>)
    The reading of what the session does next (A-23) is the kernel's: it
    ends with the status the kernel declares as hooks.transform_abort_status,
    failed when it declares none.

    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour   | timeout ms |
      | T1         | transform | <behaviour> | 1000       |
      | O2         | observe   |             |            |
    When the session runs
    Then hook subscriber "O2" was never dispatched
    And a hook_error event from "T1" with point "pre-model-call", mode "transform" and category "<category>" was reported
    And the hook_error event of "T1" names it as its producer and subscriber
    And the turn did not go on after the dispatch to "T1"
    And the session ended with the status the kernel declares for an aborted transform

    Examples:
      | behaviour                  | category         |
      | fails                      | TRANSFORM_FAILED |
      | crashes                    | PROCESS_CRASHED  |
      | hangs                      | TIMEOUT          |
      | answers with a null result | INVALID_RESPONSE |

  @HD-03 @HD-14 @must
  Scenario Outline: a failing transform in the middle of a chain at <point> aborts it, and the hook_error names the middle one
    The failing transform is neither the first subscriber of the point nor
    at pre-model-call: a kernel that names the chain's first subscriber, or
    aborts only at pre-model-call, is caught here.

    Given a data_source tool "probe" from provider "sensors" declared safe with no key fields
    And these hook subscribers at "<point>", in this order:
      | subscriber | mode      | behaviour | timeout ms |
      | T1         | transform |           |            |
      | T2         | transform | fails     | 1000       |
      | O3         | observe   |           |            |
    And the model answers request 1 with call probe(target "boiler")
    And the model answers request 2 with text "Done."
    When the session runs
    Then hook subscriber "O3" was never dispatched
    And a hook_error event from "T2" with point "<point>", mode "transform" and category "TRANSFORM_FAILED" was reported
    And the hook_error event of "T2" names it as its producer and subscriber
    And the turn did not go on after the dispatch to "T2"
    And the session ended with the status the kernel declares for an aborted transform

    Examples:
      | point               |
      | post-model-response |
      | pre-tool-call       |

  @HD-10 @HD-14 @must
  Scenario Outline: a transform's unfit answer is an INVALID_RESPONSE that aborts the chain (the transform <behaviour>)
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour   |
      | T1         | transform | <behaviour> |
      | O2         | observe   |             |
    When the session runs
    Then hook subscriber "O2" was never dispatched
    And a hook_error event from "T1" with point "pre-model-call", mode "transform" and category "INVALID_RESPONSE" was reported
    And the hook_error event of "T1" names it as its producer and subscriber
    And the turn did not go on after the dispatch to "T1"
    And the session ended with the status the kernel declares for an aborted transform

    Examples:
      | behaviour                                          |
      | answers with an outcome that does not fit its mode |
      | answers with a malformed result                    |

  @HD-09 @HD-14 @must
  Scenario Outline: a transform may change only the messages at pre-model-call (the transform <behaviour>)
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour   |
      | T1         | transform | <behaviour> |
      | O2         | observe   |             |
    When the session runs
    Then hook subscriber "O2" was never dispatched
    And a hook_error event from "T1" with point "pre-model-call", mode "transform" and category "INVALID_RESPONSE" was reported
    And the hook_error event of "T1" names it as its producer and subscriber
    And the turn did not go on after the dispatch to "T1"
    And the session ended with the status the kernel declares for an aborted transform

    Examples:
      | behaviour                                 |
      | changes the model                         |
      | answers with the payload of another point |

  @HD-03 @HD-14 @must
  Scenario: a failing transform at session-end aborts its chain, and the session still ends with a result
    The loop is over when session-end is dispatched: whatever status the
    kernel then gives the session (the one it had, or its declared
    transform-abort status), the chain stops at the failure and session/run
    is answered with the session's result, not with a kernel error.
    Given these hook subscribers at "session-end", in this order:
      | subscriber | mode      | behaviour | timeout ms |
      | T1         | transform | fails     | 1000       |
      | O2         | observe   |           |            |
    And the model answers request 1 with text "Finished."
    When the session runs
    Then hook subscriber "O2" was never dispatched
    And a hook_error event from "T1" with point "session-end", mode "transform" and category "TRANSFORM_FAILED" was reported
    And the hook_error event of "T1" names it as its producer and subscriber

  @HD-14 @TA-18 @must
  Scenario: a hook call the kernel abandoned because the session was cancelled is no failure of its subscriber
    The harness cancels the session as soon as the transform's call
    arrives; the subscriber's timeout is a minute, so only the cancel ends
    the call. The kernel abandons it: no hook_error names the subscriber,
    and the session ends cancelled. An observer that really fails at
    session-start is the witness: a kernel that records no subscriber's
    failure shows nothing by saying nothing of the abandoned call.
    Given these hook subscribers at "session-start", in this order:
      | subscriber | mode    | behaviour | timeout ms |
      | O0         | observe | fails     | 1000       |
    And these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour | timeout ms |
      | T1         | transform | hangs     | 60000      |
    And the harness cancels the session once "T1" is dispatched
    When the session runs
    Then no hook_error event names "T1", whose call the kernel abandoned, though the kernel recorded the failure of "O0"
    And the last session_meta row carries the final status

  @HD-09 @HD-14 @must
  Scenario Outline: no field is mutable at <point>, so a one-byte change is an INVALID_RESPONSE
    Given a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And these hook subscribers at "<point>", in this order:
      | subscriber | mode      | behaviour                       |
      | T          | transform | changes one byte of the payload |
      | O          | observe   |                                 |
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then hook subscriber "O" was never dispatched
    And a hook_error event from "T" with point "<point>", mode "transform" and category "INVALID_RESPONSE" was reported
    And the hook_error event of "T" names it as its producer and subscriber
    And the turn did not go on after the dispatch to "T"
    And the session ended with the status the kernel declares for an aborted transform

    Examples:
      | point               |
      | post-model-response |
      | pre-tool-call       |
      | plan-ready          |
      | post-tool-call      |

  @HD-09 @must
  Scenario: a transform that returns the payload unchanged is accepted at every point
    Given a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And a transform subscriber "T" at every hook point
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And no hook_error event was reported
    And the model was asked 2 times

  @HD-09 @must
  Scenario: an unchanged payload whose echo spells its empty lists another way is accepted
    PROTOCOL.md §3 and §9 HookPayload: every array may be null, and for the
    lists messages and tools of a pre-model-call payload null means absent.
    No tool is offered, so the payload has no tools; "T" answers with the
    payload unchanged, its empty or absent lists spelled null, a null one
    left out (as a Go nil slice or a dropped field spells them). This is the
    payload the kernel sent (HD-09: an unchanged payload is accepted): the
    kernel reports no hook_error and sends the model the messages.
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour                                                           |
      | T          | transform | answers the payload unchanged, spelling its empty lists another way |
      | O          | observe   |                                                                     |
    And the model answers request 1 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the kernel took the echo of "T" for the unchanged payload and sent the model its messages
    And no hook_error event was reported

  @HD-04 @HD-14 @must
  Scenario Outline: a failing veto counts as a deny (the veto <behaviour>)
    Given a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And these hook subscribers at "plan-ready", in this order:
      | subscriber | mode | behaviour   | timeout ms |
      | V          | veto | <behaviour> | 1000       |
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then no tool/invoke of "write" reached the harness
    And model request 2 carried a denial result for every "write" call
    And a hook_error event from "V" with point "plan-ready", mode "veto" and category "<category>" was reported
    And the hook_error event of "V" names it as its producer and subscriber
    And the session ends with status "completed"

    Examples:
      | behaviour                  | category         |
      | fails                      | VETO_FAILED      |
      | crashes                    | PROCESS_CRASHED  |
      | hangs                      | TIMEOUT          |
      | answers with a null result | INVALID_RESPONSE |

  @HD-10 @HD-14 @must
  Scenario Outline: a veto's unfit answer is an INVALID_RESPONSE and counts as a deny (the veto <behaviour>)
    Given a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And these hook subscribers at "plan-ready", in this order:
      | subscriber | mode | behaviour   |
      | V          | veto | <behaviour> |
    And the model answers request 1 with call write(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then no tool/invoke of "write" reached the harness
    And model request 2 carried a denial result for every "write" call
    And a hook_error event from "V" with point "plan-ready", mode "veto" and category "INVALID_RESPONSE" was reported
    And the hook_error event of "V" names it as its producer and subscriber
    And the session ends with status "completed"

    Examples:
      | behaviour                                                |
      | answers UNSPECIFIED                                      |
      | answers with an outcome that does not fit its mode       |
      | answers ALLOW with an outcome that does not fit its mode |
      | answers with a malformed result                          |
