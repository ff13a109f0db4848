Feature: Soft limits pause for the user; hard limits stay the default
  A kernel may offer soft limits for max_turns and max_cost_usd (capability
  bound.soft_limits, config bounds.soft). A soft bound does not end the
  session: the kernel reports a limit_reached event with soft: true, adds a
  notice, and makes no model request until the user explicitly continues
  (session/continue); then the turns resume with the user's message. The
  harness waits a while before it continues, so a kernel that did not
  really pause is seen calling the model meanwhile. Without the option,
  reaching a bound ends the session with no input at all: an unattended run
  always finishes. Every run here is cancelled by the harness if it has not
  ended within a few seconds, so a kernel that waits forever fails instead
  of hanging.

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And the model answers request 1 with call search(query "a")
    And the model answers request 2 with call search(query "b")
    And the model answers request 3 with text "Continuing as you asked: here is the answer."

  @TA-09 @may
  Scenario: a soft max_turns pauses the session until the user continues
    Given the session allows at most 2 turns
    And soft limits are on
    And when the session pauses, the user continues with "Please go on."
    When the session runs for at most 10 seconds
    Then the session paused with a limit_reached event and the model got no request until the user continued
    And model request 3 carried the user's continuation and offered tools
    And the model was asked 3 times
    And the session ends with status "completed"

  @TA-09 @may
  Scenario: a soft max_cost_usd pauses the session the same way
    Given the model's price is $1 per million input tokens and $0 per million output tokens
    And every model reply uses 400000 input tokens and 0 output tokens
    And the session allows at most 50 turns
    And the session has a cost bound of $0.70
    And soft limits are on
    And when the session pauses, the user continues with "Spend a little more."
    When the session runs for at most 10 seconds
    Then the session paused with a limit_reached event and the model got no request until the user continued
    And model request 3 carried the user's continuation and offered tools
    And the session ends with status "completed"

  @TA-22 @must
  Scenario: without the soft option, reaching max_turns ends the session without any input
    Given the session allows at most 2 turns
    When the session runs for at most 5 seconds
    Then the session ended on its own
