Feature: A soft limit pauses again after the user continued
  A soft bound (capability bound.soft_limits, config bounds.soft) pauses
  the session each time it is reached, and the kernel adds a notice of its
  own to the history before the user's continuation. How much a resumed
  bound allows before it pauses again is the kernel's reading
  bound.soft_resume: a kernel that declares fresh_allowance is held to the
  bound's full size again, counted from the continuation (turns, dollars,
  or weighted tokens); under any other reading the turns only have to
  resume. The harness continues every pause, and the model answers with
  text at request 5, so every reading completes the session.

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And the model answers every request with a call to "search" whose query changes each time
    And the model answers request 5 with text "Here is the answer, as you asked."
    And soft limits are on
    And when the session pauses, the user continues with "Please go on."

  @TA-09 @may
  Scenario: a soft max_turns 2 pauses after turns 2 and 4, and a notice of the kernel's comes before the continuation
    Given the session allows at most 2 turns
    When the session runs for at most 15 seconds
    Then the session paused after model requests 2 and 4, as a fresh allowance after each continuation gives
    And model request 3 carried a notice of the kernel's own, new since the request before it
    And model request 3 carried the user's continuation and offered tools
    And the session ends with status "completed"

  @TA-09 @may
  Scenario: a soft max_cost_usd grants a fresh $0.70 after each continuation
    Turns cost $0.40: the bound is reached at $0.80 (request 2), and again
    at $0.80 spent since the continuation (request 4).
    Given the model's price is $1 per million input tokens and $0 per million output tokens
    And every model reply uses 400000 input tokens and 0 output tokens
    And the session allows at most 50 turns
    And the session has a cost bound of $0.70
    When the session runs for at most 15 seconds
    Then the session paused after model requests 2 and 4, as a fresh allowance after each continuation gives
    And the session ends with status "completed"

  @TA-05 @TA-09 @may
  Scenario: a soft weighted-token budget grants a fresh budget after each continuation
    The weighted-token budget refines max_cost_usd (TA-05), so it pauses
    and resumes as the soft dollar bound does, under the same reading.
    Each turn weighs 200 x 1 + 1000 x 1 = 1200 tokens: the budget of 2400 is
    reached exactly at request 2, and again at request 4.
    Given every model reply uses 1000 input tokens and 200 output tokens
    And the session allows at most 50 turns
    And the session has a cost bound of $1000
    And the token weights are 1 per output token and 1 per input token, with a budget of 2400 weighted tokens
    When the session runs for at most 15 seconds
    Then the weighted-token budget paused the session after model requests 2 and 4, as the soft cost bound it refines would
    And every cost report carries the weighted tokens of its usage
    And the session ends with status "completed"
