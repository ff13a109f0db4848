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
