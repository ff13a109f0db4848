Feature: Deterministic-first profile
  The optional deterministic-first profile (capability
  profile.deterministic_first, PROTOCOL.md §17): the framework runs every
  step that needs no judgment before it asks the model, offers the model
  only the tools and skills whose conditions hold on session memory, checks
  the same gate again when any call is dispatched, asks the user before a
  call that needs confirmation, and treats a cancelled run as cancelled.
  A kernel that does not declare the capability is skipped here; these rows
  are reported under their own profile, apart from the agent-loop level.

  What is observed: the tools, skills and active skill of each model
  request; the order of tool/invoke, frontend/confirm and model/stream
  requests; the memory and call records in each run's result; and how the
  kernel lets go of the requests in flight when the session is cancelled.
  "Promptly" (DF-07) is checked with a generous upper bound: a kernel that
  does not abandon its requests leaves them hanging until the scenario ends.

  Background:
    Given the session uses the deterministic-first profile

  @DF-01 @seed
  Scenario: a block of determined steps runs to its answer without the model
    Given session memory starts with order_id "A-17"
    And a data_source tool "lookup" from provider "shop"
    And a block "order-status" with these steps:
      | collect      | order_id                |
      | execute_tool | lookup(id "A-17")       |
      | set_memory   | looked_up true          |
      | noop         |                         |
      | action       | Your order has shipped. |
    When the session runs
    Then the session ends with status "completed"
    And the model was asked 0 times
    And the tool "lookup" was invoked 1 time
    And the final message says "Your order has shipped."
    And the run's memory holds looked_up true

  @DF-01 @seed
  Scenario: the determined steps ahead of a model step run before the model is asked
    Given a data_source tool "lookup" from provider "shop"
    And a data_source tool "reply" from provider "shop"
    And the tool "reply" is gated on "looked_up"
    And a block "triage" with these steps:
      | execute_tool | lookup         |
      | set_memory   | looked_up true |
      | model        |                |
    And the model answers request 1 with text "Here is what I found."
    When the session runs
    Then the session ends with status "completed"
    And "lookup" had answered before model request 1 arrived
    And the tool "lookup" was invoked 1 time
    And model request 1 offered the tool "reply"

  @DF-02 @seed
  Scenario: a gated tool is offered exactly while its condition holds, pass after pass
    Given a data_source tool "verify" from provider "bank"
    And a data_source tool "revoke" from provider "bank"
    And a resource tool "refund" from provider "bank"
    And a policy rule "refunds-ok" that allows "refund"
    And the tool "refund" is gated on "verified"
    And the tool "verify" writes verified true to memory as it runs
    And the tool "revoke" writes verified false to memory as it runs
    And the model answers request 1 with call verify(customer "c-1")
    And the model answers request 2 with call revoke(customer "c-1")
    And the model answers request 3 with text "No refund after all."
    When the session runs
    Then the session ends with status "completed"
    And model request 1 offered the tool "verify"
    And model request 1 did not offer the tool "refund"
    And model request 2 offered the tools "verify" and "refund"
    And model request 3 did not offer the tool "refund"

  @DF-03 @seed
  Scenario: a forged call to a tool whose gate is closed never runs
    Given a resource tool "refund" from provider "bank"
    And a policy rule "refunds-ok" that allows "refund"
    And the tool "refund" is gated on "approved"
    And the model answers request 1 with call refund(amount 20)
    And the model answers request 2 with text "I could not refund that."
    When the session runs
    Then the session ends with status "completed"
    And the tool "refund" was never invoked
    And the run recorded no call of "refund"
    And model request 2 holds a refusal for the call to "refund"

  @DF-03 @seed
  Scenario: an execute_tool step waits for its gate, then runs once
    Given a data_source tool "approve" from provider "bank"
    And a resource tool "refund" from provider "bank"
    And a policy rule "refunds-ok" that allows "refund"
    And the tool "refund" is gated on "approved"
    And the tool "approve" writes approved true to memory as it runs
    And a block "refund-flow" with these steps:
      | execute_tool | refund(amount 20) |
    And the model answers request 1 with call approve(ticket "T-9")
    And the model answers request 2 with text "Refunded."
    When the session runs
    Then the session ends with status "completed"
    And the tool "refund" was invoked 1 time
    And "refund" ran after "approve" had answered and before model request 2

  @DF-04 @seed
  Scenario: unset, zero and unevaluable conditions keep their gates closed
    Given session memory starts with count 0, amount "lots"
    And a data_source tool "counter" from provider "t"
    And a data_source tool "ghost" from provider "t"
    And a data_source tool "big" from provider "t"
    And a data_source tool "bump" from provider "t"
    And the tool "counter" is gated on "count"
    And the tool "ghost" is gated on "never_set"
    And the tool "big" is gated on "amount" above 100
    And the tool "bump" writes count 2 to memory as it runs
    And the model answers request 1 with calls ghost(x 1), bump(by 2)
    And the model answers request 2 with text "Done."
    When the session runs
    Then the session ends with status "completed"
    And model request 1 offered the tool "bump"
    And model request 1 did not offer the tools "counter", "ghost" and "big"
    And the tool "ghost" was never invoked
    And model request 2 offered the tool "counter"
    And model request 2 did not offer the tools "ghost" and "big"

  @DF-05 @seed
  Scenario: a call the user does not confirm never runs
    Given a resource tool "transfer" from provider "bank"
    And a policy rule "transfers-ok" that allows "transfer"
    And the tool "transfer" needs the user's confirmation
    And the user answers no when asked to confirm "transfer"
    And the model answers request 1 with call transfer(amount 500)
    And the model answers request 2 with text "The transfer did not happen."
    When the session runs
    Then the session ends with status "completed"
    And the user was asked to confirm "transfer"
    And the tool "transfer" was never invoked
    And model request 2 holds a refusal for the call to "transfer"

  @DF-05 @seed
  Scenario: a call the user confirms runs exactly once, after the answer
    Given a resource tool "transfer" from provider "bank"
    And a policy rule "transfers-ok" that allows "transfer"
    And the tool "transfer" needs the user's confirmation
    And the user answers yes when asked to confirm "transfer"
    And the model answers request 1 with call transfer(amount 500)
    And the model answers request 2 with text "Transferred."
    When the session runs
    Then the session ends with status "completed"
    And the user was asked to confirm "transfer" before it ran
    And the tool "transfer" was invoked 1 time

  @DF-05 @seed
  Scenario: every call that needs confirmation is asked about, not only the first of its tool
    Given a resource tool "transfer" from provider "bank"
    And a policy rule "transfers-ok" that allows "transfer"
    And the tool "transfer" needs the user's confirmation
    And the user answers yes when asked to confirm "transfer"
    And the model answers request 1 with call transfer(amount 500)
    And the model answers request 2 with call transfer(amount 700)
    And the model answers request 3 with text "Transferred twice."
    When the session runs
    Then the session ends with status "completed"
    And the user was asked to confirm "transfer" 2 times
    And the tool "transfer" was invoked 2 times

  @DF-06 @seed
  Scenario: only eligible skills are offered, and a switch to another one is refused
    Given a data_source tool "verify" from provider "bank"
    And the tool "verify" writes account_verified true to memory as it runs
    And a skill "faq" the model may always route to
    And a skill "billing" the model may route to only while memory holds "account_verified"
    And the model answers request 1 by switching to skill "billing"
    And the model answers request 2 with call verify(customer "c-1")
    And the model answers request 3 by switching to skill "billing"
    And the model answers request 4 with text "Billing here."
    When the session runs
    Then the session ends with status "completed"
    And the model was asked 4 times
    And model request 1 offered the skill "faq"
    And model request 1 did not offer the skill "billing"
    And model request 2 did not have "billing" as its active skill
    And model request 3 offered the skills "faq" and "billing"
    And model request 4 had "billing" as its active skill

  @DF-07 @seed
  Scenario: a cancel while the model is asked ends the run as cancelled, promptly, not as an error
    Given a data_source tool "search" from provider "web"
    And the harness cancels the session while model request 1 is in flight
    When the session runs
    Then the session ends with status "cancelled"
    And the cancellation was not reported as an error
    And the kernel abandoned model request 1 within 3000 ms of the cancel
    And the run ended within 3000 ms of the cancel

  @DF-07 @seed
  Scenario: a cancel while a block's tool runs ends the run as cancelled, not as an error
    Given a data_source tool "export" from provider "files"
    And the first call to "export" has the harness cancel the session, then waits to be cancelled
    And a block "backup" with these steps:
      | execute_tool | export |
    When the session runs
    Then the session ends with status "cancelled"
    And the cancellation was not reported as an error
    And the kernel abandoned the call to "export" within 3000 ms of the cancel
    And the run ended within 3000 ms of the cancel
    And the model was asked 0 times

  @DF-07 @seed
  Scenario: a cancel while the model's tool call runs ends the run as cancelled, not as an error
    Given a data_source tool "export" from provider "files"
    And the first call to "export" has the harness cancel the session, then waits to be cancelled
    And the model answers request 1 with call export(path "a.txt")
    When the session runs
    Then the session ends with status "cancelled"
    And the cancellation was not reported as an error
    And the kernel abandoned the call to "export" within 3000 ms of the cancel
    And the model was asked 1 time

  @DF-08 @seed
  Scenario: memory a tool wrote before the cancel is kept
    Given a data_source tool "draft" from provider "docs"
    And the tool "draft" writes draft "v1" to memory as it runs
    And the first call to "draft" has the harness cancel the session, then waits to be cancelled
    And the model answers request 1 with call draft(topic "q3")
    When the session runs
    Then the session ends with status "cancelled"
    And the run's memory holds draft "v1"

  @DF-02 @DF-08 @seed
  Scenario: a new session starts from its own initial memory, not from what another session's run left
    Both sessions have the same configuration; only the first one's run
    wrote "verified". A kernel that keeps the profile's state per
    configuration, not per session, opens the second session's gate.
    Given a data_source tool "verify" from provider "bank"
    And a resource tool "refund" from provider "bank"
    And a policy rule "refunds-ok" that allows "refund"
    And the tool "refund" is gated on "verified"
    And the tool "verify" writes verified true to memory as it runs
    And the model answers request 1 with call verify(customer "c-1")
    And the model answers request 2 with text "Verified."
    When the session runs
    Then model request 2 offered the tool "refund"
    When a second session runs under the same profile
    Then the second session's model request 1 did not offer the tool "refund"

  @DF-09 @seed
  Scenario: a block's tool cancelled mid-call leaves no record and runs again on the next message
    Given a resource tool "save" from provider "docs"
    And a policy rule "saves-ok" that allows "save"
    And the tool "save" writes saved_at "t1" to memory as it runs
    And the first call to "save" has the harness cancel the session, then waits to be cancelled
    And a block "autosave" with these steps:
      | execute_tool | save |
    When the session runs
    Then the session ends with status "cancelled"
    And the kernel abandoned the call to "save" within 3000 ms of the cancel
    And the run recorded no call of "save"
    When the user sends the next message "Is it saved?"
    Then the session ends with status "completed"
    And the tool "save" was invoked 2 times
    And the run recorded 1 call of "save"

  @DF-10 @seed
  Scenario: after a tool call the framework runs again before the next model request
    Given a data_source tool "open_ticket" from provider "desk"
    And a resource tool "notify" from provider "desk"
    And a resource tool "close_ticket" from provider "desk"
    And a policy rule "notify-ok" that allows "notify"
    And a policy rule "close-ok" that allows "close_ticket"
    And the tool "notify" is gated on "ticket"
    And the tool "close_ticket" is gated on "ticket"
    And the tool "open_ticket" writes ticket "T-1" to memory as it runs
    And a block "follow-up" with these steps:
      | execute_tool | notify(channel "email") |
    And the model answers request 1 with call open_ticket(topic "login")
    And the model answers request 2 with text "Ticket opened."
    When the session runs
    Then the session ends with status "completed"
    And model request 1 did not offer the tool "close_ticket"
    And the tool "notify" was invoked 1 time
    And "notify" ran after "open_ticket" had answered and before model request 2
    And model request 2 offered the tool "close_ticket"
    And the run recorded 1 call of "notify"

  @DF-01 @seed
  Scenario: a step's call goes to its tool's provider with the step's input, or {} without one, and every action is delivered
    Given a data_source tool "lookup" from provider "shop"
    And a data_source tool "stamp" from provider "desk"
    And a block "status" with these steps:
      | execute_tool | stamp                   |
      | execute_tool | lookup(id "A-17")       |
      | action       | Your order has shipped. |
      | action       | It arrives on Friday.   |
    When the session runs
    Then the session ends with status "completed"
    And the model was asked 0 times
    And the step's call to "stamp" went to provider "desk" as attempt 1 with input {}
    And the step's call to "lookup" went to provider "shop" as attempt 1 with input {"id":"A-17"}
    And the final message says "It arrives on Friday."

  @DF-01 @seed
  Scenario: one pass runs every block, again after a later block opens an earlier one's gate, and a block waiting for the model keeps the run going
    Given a data_source tool "notify" from provider "desk"
    And the tool "notify" is gated on "ready"
    And a block "first" with these steps:
      | execute_tool | notify |
    And a block "second" with these steps:
      | set_memory | ready 1 |
      | action     | On it.  |
    And a block "third" with these steps:
      | model |  |
    And the model answers request 1 with text "Anything else?"
    When the session runs
    Then the session ends with status "completed"
    And the tool "notify" was invoked 1 time
    And "notify" had answered before model request 1 arrived
    And the model was asked 1 time
    And model request 1 holds the action "On it." as an assistant message

  @DF-10 @seed
  Scenario: a reply completes the model step of every block, and the steps after them run before the next model request
    Given a data_source tool "lookup" from provider "shop"
    And a data_source tool "audit" from provider "desk"
    And a data_source tool "notify" from provider "desk"
    And a block "greet" with these steps:
      | model        |       |
      | execute_tool | audit |
    And a block "wrap" with these steps:
      | model        |        |
      | execute_tool | notify |
    And the model answers request 1 with call lookup(id "A-17")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the session ends with status "completed"
    And "audit" ran after "lookup" had answered and before model request 2
    And "notify" ran after "lookup" had answered and before model request 2

  @DF-03 @seed
  Scenario: the model gets a gated call's own output when its gate is open, and an error result when it is closed
    Given session memory starts with approved true
    And a resource tool "refund" from provider "bank"
    And a resource tool "wire" from provider "bank"
    And a policy rule "refunds-ok" that allows "refund"
    And a policy rule "wires-ok" that allows "wire"
    And the tool "refund" is gated on "approved"
    And the tool "wire" is gated on "cleared"
    And the tool "refund" answers "refund R-77 issued"
    And the model answers request 1 with calls refund(amount 20), wire(amount 5)
    And the model answers request 2 with text "Refunded; the wire is not allowed."
    When the session runs
    Then the session ends with status "completed"
    And the tool "refund" was invoked 1 time
    And the tool "wire" was never invoked
    And model request 2 holds the output of the call to "refund"
    And model request 2 holds a refusal for the call to "wire"

  @DF-06 @seed
  Scenario: a switch that follows text in the reply is applied, to the first skill too, and the active skill carries over to the next message
    Given a data_source tool "lookup" from provider "shop"
    And a skill "faq" the model may always route to
    And a skill "billing" the model may always route to
    And the session's active skill starts as "billing"
    And the model answers request 1 with text "Let me route you.", a switch to skill "faq" and call lookup(topic "faq")
    And the model answers request 2 with text "FAQ here."
    When the session runs
    Then the session ends with status "completed"
    And model request 1 had "billing" as its active skill
    And model request 2 had "faq" as its active skill
    When the user sends the next message "One more question."
    Then the session ends with status "completed"
    And model request 3 had "faq" as its active skill

  @DF-08 @DF-09 @seed
  Scenario: the next message resumes where the cancelled run stood: memory kept, finished steps not run again, the cancelled one run again
    Given a data_source tool "stamp" from provider "docs"
    And a resource tool "save" from provider "docs"
    And a policy rule "saves-ok" that allows "save"
    And the tool "stamp" writes stamped true to memory as it runs
    And the tool "save" is gated on "stamped"
    And the first call to "save" has the harness cancel the session, then waits to be cancelled
    And a block "autosave" with these steps:
      | execute_tool | stamp |
      | execute_tool | save  |
    When the session runs
    Then the session ends with status "cancelled"
    And the run's memory holds stamped true
    When the user sends the next message "Is it saved?"
    Then the session ends with status "completed"
    And the tool "stamp" was invoked 1 time
    And the tool "save" was invoked 2 times
    And the run's memory holds stamped true
    And the run recorded 1 call of "save"

  @DF-09 @seed
  Scenario: a step cancelled while the user is asked to confirm has not run, and asks again on the next message
    Given a resource tool "transfer" from provider "bank"
    And a policy rule "transfers-ok" that allows "transfer"
    And the tool "transfer" needs the user's confirmation
    And the first confirmation of "transfer" has the harness cancel the session, then waits to be cancelled
    And a block "payout" with these steps:
      | execute_tool | transfer(amount 500) |
    When the session runs
    Then the session ends with status "cancelled"
    And the tool "transfer" was invoked 0 times
    When the user sends the next message "Go ahead."
    Then the session ends with status "completed"
    And the user was asked to confirm "transfer" 2 times
    And the tool "transfer" was invoked 1 time

  @DF-01 @seed
  Scenario: a failed model reply completes no model step, the retried one does
    Given retry settings of base 10 ms, factor 2 and 3 retries per call
    And a data_source tool "lookup" from provider "shop"
    And a block "two-answers" with these steps:
      | model  |             |
      | model  |             |
      | action | Wrapped up. |
    And the model answers request 1 with a retryable "overloaded" error
    And the model answers request 2 with call lookup(id "A-17")
    And the model answers request 3 with text "Done."
    When the session runs
    Then the session ends with status "completed"
    And the model was asked 3 times
    And the final message says "Done."
