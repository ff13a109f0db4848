Feature: Hook subscriber timeouts
  Every call to a subscriber is bounded by the session's default hook
  timeout, or by the subscriber's own timeout where one is declared. The
  kernel enforces it itself: when it expires, the kernel stops waiting,
  cancels the call and handles the subscriber by its mode.

  No verdict races the kernel's timer: the subscriber that must be given up
  on hangs until the kernel cancels it, and the one that must be waited for
  answers 5 s before its own timeout (six times the wait, so that a busy
  machine cannot make it late) and 500 ms after the default one.
  How long the kernel waited is read from its own hook_subscriber span
  where it sends one, else from the harness's arrival times, which trail
  the kernel's timer by the transit time; either must show at least half
  the timeout.

  @HD-05 @must
  Scenario: each call gets the default timeout or the subscriber's own, at every invocation
    "S" hangs and has the default of 500 ms, so the kernel gives it up (an
    observer: the chain goes on); "L" answers after 1000 ms and has its own
    6000 ms, so the kernel waits for it (that its answer then reaches the
    model is the payload flow's, HD-01). The session has two turns, so each
    subscriber is called twice.

    Given a data_source tool "read" from provider "fs" declared safe with no key fields
    And the default hook timeout is 500 ms
    And these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour                 | timeout ms |
      | S          | observe   | hangs                     |            |
      | L          | transform | appends "L" after 1000 ms | 6000       |
    And the model answers request 1 with call read(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And every dispatch to "S" announced a timeout of 500 ms
    And every dispatch to "L" announced a timeout of 6000 ms
    And the kernel gave up on "S" after at least 500 ms every time and went on without its answer
    And the kernel waited for "L" every time and went on only after its answer
