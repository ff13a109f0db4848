Feature: Session lifecycle
  session-start fires once before the first turn and session-end fires
  exactly once after the loop, whatever ended it.

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And an observe subscriber "S" at "session-start"
    And an observe subscriber "E" at "session-end"

  @TA-18 @must
  Scenario: a session that finishes on its own
    Given the model answers request 1 with call search(query "go")
    And the model answers request 2 with text "Found it."
    When the session runs
    Then "session-start" was dispatched exactly once, before the first context assemble
    And "session-end" was dispatched exactly once, after the last model request
    And the session-end payload carries the final status
    And the last session_meta row carries the final status
    And the session-end payload and the end row carry the final message "Found it."
    And the session_meta rows record one start: a single running row, and every row with its started_at and depth

  @TA-18 @must
  Scenario: a session ended by max_turns
    Given the session allows at most 2 turns
    And the model answers every request with a call to "search" whose query changes each time
    When the session runs
    Then "session-start" was dispatched exactly once, before the first context assemble
    And "session-end" was dispatched exactly once, after the last model request
    And the session-end payload carries the final status
    And the session_meta rows record one start: a single running row, and every row with its started_at and depth

  @TA-18 @must
  Scenario: a cancelled session
    Given the model answers request 1 with call search(query "go")
    And the model hangs on request 2 and the harness cancels the session meanwhile
    When the session runs
    Then "session-start" was dispatched exactly once, before the first context assemble
    And "session-end" was dispatched exactly once, after the last model request
    And the session-end payload carries the final status
    And the last session_meta row carries the final status

  @TA-18 @must
  Scenario: a session cancelled when no call is in flight
    The cancel comes in the same write as the tool's answer, so the kernel
    reads both at once with no call of the session in flight; request 2,
    if the kernel still sends it, is answered only after the kernel
    answered the cancel. A cancelled session ends "cancelled" (PROTOCOL.md
    §5 item 4) whether or not a call was in flight when the cancel came:
    a loop that only abandons the calls in flight goes on to the end.
    Given the model answers request 1 with call search(query "go")
    And the harness cancels the session in the same write as the first answer of "search", and the model answers request 2 with text "Found it." only once the kernel answered the cancel
    When the session runs
    Then "session-end" was dispatched exactly once, after the last model request
    And the session-end payload carries the final status
    And the last session_meta row carries the final status

  @TA-18 @must
  Scenario: session/cancel answers, a method the protocol does not define, and the end of the kernel's input
    session/cancel is answered {} for a running and for an ended session
    and -32005 for an id the kernel never ran (PROTOCOL.md §6.3); a method
    the protocol does not define gets -32601 (§2); at the end of its input
    the kernel exits (§2, End of the connection). So are the other requests
    a session's parties may send out of turn: a second initialize gets
    -32600, and an initialize offering no version the kernel speaks -32006
    (§4); session/run naming a session still running -32600 (§17.8);
    session/spawn from the running session for a call_id that is no
    tool/invoke in flight -32602 (§6.4), or -32601 from a kernel that
    serves no session/spawn (§2), never an internal error;
    session/continue of a session nothing paused -32602, of an
    id never run -32005 (§6.5; an ended session is either, as a kernel
    keeps or forgets it); frontend/decide of an ended or never-run session
    -32005 (§6.7); memory/write to a session that is not deterministic-first
    -32602, to an id never run -32005 (§17.5); a $/cancelRequest naming
    no request of the harness is ignored, never answered (§2,
    Cancellation); a request is read whatever pieces its line comes in,
    its newline in a write of its own included, and a line of 8 MiB,
    newline excluded, is read like any other (§2). A wrong answer, or a
    kernel that stays, is a protocol error.
    Given the model answers request 1 with call search(query "go")
    And the model hangs on request 2 while the harness cancels the session, noting the answer
    When the session runs
    Then "session-end" was dispatched exactly once, after the last model request
    And the session-end payload carries the final status
    And the last session_meta row carries the final status
    And the kernel answered the cancel of the running session with {}
    And the kernel answered session/continue of the running session, which nothing paused, with -32602
    And the kernel answered a second session/run naming the running session with -32600
    And the kernel answered session/spawn from the running session for a call not in flight with -32602, or -32601 if it serves no session/spawn
    And the kernel answers session/cancel of the ended session with {}
    And the kernel answers session/cancel of a session id it never ran with -32005
    And the kernel answers a request for the undefined method "session/pause" with -32601
    And the kernel answers a second initialize with -32600
    And a kernel started anew answers an initialize that offers only "conform.wire/v0" with -32006
    And the kernel answers session/continue of the ended session with -32602 or -32005
    And the kernel answers session/continue of a session id it never ran with -32005
    And the kernel answers frontend/decide of the ended session with -32005
    And the kernel answers frontend/decide of a session id it never ran with -32005
    And the kernel answers memory/write to the ended session with -32602
    And the kernel answers memory/write to a session id it never ran with -32005
    And the kernel answers session/cancel of a session id it never ran with -32005
    And the kernel ignores a $/cancelRequest naming a request id the harness never sent, and answers session/cancel of a session id it never ran with -32005 after it
    And the kernel answers session/cancel of a session id it never ran with -32005 when the request's newline comes in a write of its own
    And the kernel answers session/continue of a session id it never ran with -32005 when the request's line is 8 MiB long, the most a line may be
    And the kernel exits within 5 seconds once its input ends

  @TA-18 @must
  Scenario: shutdown with two sessions still running cancels both, which end properly before it is answered
    The harness sends shutdown (params null, which §6.6 allows beside {})
    while both sessions wait in a model call.
    The kernel cancels them; each still runs session-end and sends its end
    row; each session/run is answered; only then is shutdown answered, and
    the kernel exits 0 with its input still open (PROTOCOL.md §5 item 6,
    §6.6). A kernel that does otherwise has a protocol error.
    Given the model hangs on request 1
    When 2 sessions run on one kernel until the harness shuts it down while each waits in a model call
    Then each session fired "session-start" and "session-end" once, and its session-end and end row carry "cancelled"
    And the kernel answered shutdown only after every session's end row, and answered every session/run
    And the kernel then exited with status 0 within 5 seconds, its input still open

  @TA-18 @must
  Scenario: the end of its input ends the kernel, even while a session waits in a model call
    End-of-file on stdin means the harness is gone: the kernel exits
    (PROTOCOL.md §2, End of the connection), whatever its sessions were
    doing. A kernel that stays has a protocol error.
    Given the model hangs on request 1
    When 1 session runs on one kernel until the harness closes its input while each waits in a model call
    Then "session-start" was dispatched exactly once, before the first context assemble
    And the kernel exited within 5 seconds of the end of its input

  @TA-18 @must
  Scenario: the end of its input ends the kernel, even while a session waits on a hook subscriber with a long timeout
    The subscriber hangs and has a timeout of its own of 60 s, so the
    kernel is waiting on a call and holds a timer for it when the harness
    goes. End-of-file still ends the kernel at once (PROTOCOL.md §2, End of
    the connection): a kernel that stays until its timer fires, or for
    good, has a protocol error.
    Given these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode    | behaviour | timeout ms |
      | W          | observe | hangs     | 60000      |
    When 1 session runs on one kernel until the harness closes its input while each waits on the hook subscriber "W"
    Then "session-start" was dispatched exactly once, before the first context assemble
    And the kernel exited within 5 seconds of the end of its input
