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
