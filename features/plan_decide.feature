Feature: Decisions and answers from a second frontend connection
  Besides the primary connection, which gets the kernel's frontend/permission
  and frontend/interactive requests, the harness plays a second connection
  that sends frontend/decide (PROTOCOL.md §6.7). Each decision or answer in
  it gets its own outcome, in the order sent; only the first decision for
  an item, or answer to a call, counts; a decision the kernel refuses for
  what it says is not accepted and says why with a category, and the item
  stays pending.

  @PA-16 @must
  Scenario: one frontend/decide decides two pending items, each on its own
    While the primary's permission request is pending, the second connection
    decides both items in one frontend/decide; the primary then answers each
    the other way, too late.
    Given a resource tool "save" from provider "store"
    And a resource tool "drop" from provider "store"
    And a policy rule "store-ask" that asks for the tools of provider "store"
    And a second frontend connection decides "save" with ALLOW and "drop" with DENY in one frontend/decide before the frontend answers the other way
    And the model answers request 1 with calls save(key "1"), drop(key "2")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's decision on "save" was accepted
    And the second frontend connection's decision on "drop" was accepted
    And the tool "save" was invoked 1 time
    And the tool "drop" was invoked 0 times
    And model request 2 holds a denial for the call to "drop"

  @PA-19 @must
  Scenario: a second connection's ALWAYS the kernel cannot keep is refused with a category, and the item stays pending
    The kernel has no policy store, so it must refuse the ALWAYS decision
    with an error naming the item; the item stays pending, and the
    primary's later ALLOW for once decides it.
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And a second frontend connection decides "save" with ALLOW and scope ALWAYS before the frontend answers ALLOW
    And the model answers request 1 with calls save(key "1")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's decision on "save" was refused with a category of the kernel's own
    And the kernel refused the ALWAYS answer for "save" with an error naming its plan item
    And the tool "save" was invoked 1 time

  @PA-16 @must
  Scenario: one frontend/decide answering two interactive calls gets an outcome for each
    Interactive calls run one at a time. While the first call's request is
    pending, the second connection answers both calls in one
    frontend/decide: the first call takes that answer; the second call is
    asked later, and the primary answers it.
    Given an interactive tool "confirm" from provider "ui"
    And an interactive tool "choose" from provider "ui"
    And the interactive tool "choose" is answered with "red"
    And a second frontend connection answers "confirm" with "yes, from the second screen" and "choose" with "blue" in one frontend/decide before the frontend answers "no"
    And the model answers request 1 with calls confirm(question "Proceed?"), choose(question "Colour?")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's answer to "confirm" was accepted
    And model request 2 holds "yes, from the second screen" as the result of the call to "confirm"
    And the session ends with status "completed"

  @PA-16 @must
  Scenario: one frontend/decide answering the same call twice: the first answer stands
    While the call's request is pending, the second connection answers it
    twice in one frontend/decide. Only the first answer to a call counts
    (PROTOCOL.md §6.7): it is the result, and the second is rejected with
    INVALID_CLIENT_EVENT and its frontend_error event; it never replaces
    the first.
    Given an interactive tool "confirm" from provider "ui"
    And a second frontend connection answers "confirm" with "yes, from the second screen" and "confirm" with "no, changed my mind" in one frontend/decide before the frontend answers "no"
    And the model answers request 1 with calls confirm(question "Proceed?")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's first answer to "confirm" was accepted and its second, in the same frontend/decide, rejected as an invalid client event
    And model request 2 holds "yes, from the second screen" as the result of the call to "confirm"
    And the session ends with status "completed"

  @PA-15 @PA-16 @must
  Scenario: an interactive call whose request failed waits for no answer
    The primary's frontend/interactive fails, so nobody answered the call:
    its result is an error. In the next turn the second connection answers
    it, and a call that never was in the same frontend/decide; neither
    waits, so each answer is rejected, each with its frontend_error event.
    Given an interactive tool "confirm" from provider "ui"
    And a data_source tool "look" from provider "kb" declared safe with no key fields
    And the frontend fails every interactive request for "confirm"
    And a second frontend connection answers the call to "confirm" with "too late" while "look" runs
    And the model answers request 1 with calls confirm(question "Proceed?")
    And the model answers request 2 with calls look(q "x")
    And the model answers request 3 with text "Done."
    When the session runs
    Then model request 2 holds an error result, not an answer, for the call to "confirm"
    And the second frontend connection's answer to "confirm" was rejected as an invalid client event

  @PA-16 @must
  Scenario: an answer from a second connection stands when the primary's request about the call then fails
    The second connection answers the call while the primary's
    frontend/interactive is pending; that answer is the call's result, and
    the primary's request failing afterwards changes nothing.
    Given an interactive tool "confirm" from provider "ui"
    And a second frontend connection answers the interactive tool "confirm" with "yes, from the second screen" before the frontend fails its request
    And the model answers request 1 with calls confirm(question "Proceed?")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's answer to "confirm" was accepted
    And model request 2 holds "yes, from the second screen" as the result of the call to "confirm"
    And the session ends with status "completed"

  @PA-16 @must
  Scenario: decisions and answers about what was never pending are rejected, one outcome each, in the order sent
    While the session's first model request hangs, nothing is pending; a
    second connection decides two plan items and answers two interactive
    calls the session never had, in one frontend/decide; then one more
    item alone (no interactive_responses) and one more call alone
    (decisions null, which the schema allows). Each gets its own
    rejection with INVALID_CLIENT_EVENT, in the order sent, and nothing
    else (PROTOCOL.md §6.7); then the harness cancels the session.
    Given the model hangs on request 1 while a second frontend connection decides two plan items and answers two calls the session never had, then decides one more alone and answers one more alone, and the harness then cancels the session
    When the session runs
    Then each decision and answer about what was never pending was rejected as an invalid client event, one outcome each, in the order sent

  @PA-16 @must
  Scenario: a decision for an item the kernel gave up on when the session was cancelled is rejected
    The harness cancels the session while the permission request about the
    item is pending. Once the kernel has withdrawn the request and
    dispatches session-end (held meanwhile), a second connection allows the
    item. It no longer awaits a decision, so the decision is rejected with
    INVALID_CLIENT_EVENT (a kernel that no longer serves the ending session
    may answer -32005 instead), and the item never runs. The same
    frontend/decide decides an item that never was: it gets its own
    rejection, one outcome per decision.
    Given a resource tool "save" from provider "store"
    And a policy rule "ask-save" that asks for "save"
    And an observe subscriber "bye" at "session-end" that answers
    And the harness cancels the session while the permission request about "save" is pending, and a second frontend connection allows it while "bye" is dispatched
    And the model answers request 1 with calls save(key "1")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the second frontend connection's decision on "save" after the cancellation was rejected
    And the tool "save" was invoked 0 times
