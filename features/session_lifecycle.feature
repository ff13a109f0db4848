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

  @TA-18 @must
  Scenario: a session ended by max_turns
    Given the session allows at most 2 turns
    And the model answers every request with a call to "search" whose query changes each time
    When the session runs
    Then "session-start" was dispatched exactly once, before the first context assemble
    And "session-end" was dispatched exactly once, after the last model request
    And the session-end payload carries the final status

  @TA-18 @must
  Scenario: a cancelled session
    Given the model answers request 1 with call search(query "go")
    And the model hangs on request 2 and the harness cancels the session meanwhile
    When the session runs
    Then "session-start" was dispatched exactly once, before the first context assemble
    And "session-end" was dispatched exactly once, after the last model request
    And the session-end payload carries the final status
    And the last session_meta row carries the final status
