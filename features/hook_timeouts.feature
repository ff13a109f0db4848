Feature: Hook subscriber timeouts
  Every call to a subscriber is bounded by the session's default hook
  timeout, or by the subscriber's own timeout where one is declared. The
  kernel enforces it itself: when it expires, the kernel stops waiting,
  cancels the call and handles the subscriber by its mode. Waiting is
  measured from the harness's arrival times, which trail the kernel's own
  timer by the transit time, so the lower bound allows half the timeout
  for a loaded machine; there is no upper bound beyond "before the
  subscriber would have answered".

  @HD-05 @must
  Scenario: each call gets the default timeout or the subscriber's own, at every invocation
    Both subscribers take 300 ms to answer. "S" has the default of 100 ms,
    so the kernel gives it up (an observer: the chain goes on); "L" has its
    own 2000 ms, so the kernel waits for it and uses its transform. The
    session has two turns, so each subscriber is called twice.

    Given a data_source tool "read" from provider "fs" declared safe with no key fields
    And the default hook timeout is 100 ms
    And these hook subscribers at "pre-model-call", in this order:
      | subscriber | mode      | behaviour                | timeout ms |
      | S          | observe   | answers after 300 ms     |            |
      | L          | transform | appends "L" after 300 ms | 2000       |
    And the model answers request 1 with call read(path "a")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And every dispatch to "S" announced a timeout of 100 ms
    And every dispatch to "L" announced a timeout of 2000 ms
    And the kernel gave up on "S" after at least 100 ms every time and went on without its answer
    And the kernel waited for "L" every time and went on only after its answer
    And model request 1 carried exactly the messages "L" returned
    And model request 2 carried exactly the messages "L" returned
