Feature: Done detection
  An assistant message without tool calls ends the loop successfully; no
  tool provider has to cooperate.

  Background:
    Given a data_source tool "lookup" from provider "kb" declared safe with no key fields
    And an observe subscriber "O" at every hook point

  @TA-10 @must
  Scenario: a first reply without tool calls ends the session at once
    Given the model answers request 1 with text "The answer is 42."
    When the session runs
    Then the model was asked 1 time
    And no "pre-tool-call", "plan-ready", "post-tool-call" or "post-apply" hook was dispatched
    And the session ends with status "completed"
    And the final message says "The answer is 42."
    And "session-end" was dispatched exactly once

  @TA-10 @must
  Scenario: a reply without tool calls after tool turns ends the session
    Given the model answers request 1 with call lookup(id "q1")
    And the model answers request 2 with call lookup(id "q2")
    And the model answers request 3 with text "Both looked up."
    When the session runs
    Then the model was asked 3 times
    And the session ends with status "completed"
    And the final message says "Both looked up."

  @TA-27 @must
  Scenario: a call to a terminal resource ends the loop right after its post-tool-call hook
    The mark terminates_turn travels in the session config (A-19). Whatever
    else the message held, no further model request follows the terminal
    call's post-tool-call hook, and the session is completed.
    Given a resource tool "finish" from provider "kb"
    And the tool "finish" is marked terminates_turn
    And a policy rule "allow-finish" that allows "finish"
    And the model answers request 1 with calls finish(answer "42"), lookup(id "q1")
    And the model answers request 2 with text "This should never be asked for."
    When the session runs
    Then the model was asked 1 time
    And the tool "finish" was invoked 1 time
    And the post-tool-call hook saw the call to "finish"
    And the session ends with status "completed"

  @TA-27 @must
  Scenario: an unmarked resource in the same place does not end the loop
    Given a resource tool "save" from provider "kb"
    And a policy rule "allow-save" that allows "save"
    And the model answers request 1 with calls save(answer "42"), lookup(id "q1")
    And the model answers request 2 with text "Saved and looked up."
    When the session runs
    Then the model was asked 2 times
    And the session ends with status "completed"
    And the final message says "Saved and looked up."

  @TA-11 @must
  Scenario: a provider's terminal mark ends the loop on top of implicit done detection
    Implicit done detection stays the baseline: the same session ends by a
    reply without tool calls when the terminal tool is not called.
    Given a resource tool "finish" from provider "kb"
    And the tool "finish" is marked terminates_turn
    And a policy rule "allow-finish" that allows "finish"
    And the model answers request 1 with call lookup(id "q1")
    And the model answers request 2 with call finish(answer "done")
    And the model answers request 3 with text "This should never be asked for."
    When the session runs
    Then the model was asked 2 times
    And the post-tool-call hook saw the call to "finish"
    And the session ends with status "completed"

  @TA-11 @must
  Scenario: where a terminal tool is offered but never called, a reply without tool calls still ends the loop
    The flag adds a way to end the loop; implicit done detection stays.
    Given a resource tool "finish" from provider "kb"
    And the tool "finish" is marked terminates_turn
    And a policy rule "allow-finish" that allows "finish"
    And the model answers request 1 with call lookup(id "q1")
    And the model answers request 2 with text "Looked it up."
    When the session runs
    Then the model was asked 2 times
    And the session ends with status "completed"
