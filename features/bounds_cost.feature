Feature: The max_cost_usd bound
  max_cost_usd caps what a session may spend and is configured on its own,
  beside the other bounds. The kernel prices every usage event itself from
  the model's declared pricing, adds it to the session's spend, and at step
  17 of every turn compares the spend with the cap: once the remaining
  budget is zero or less, the limit-reached path begins (one final-answer
  turn without tools) and the session ends error_max_budget_usd. A kernel
  that does not declare bound.max_cost_usd is skipped here (SHOULD).

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And the model answers every request with a call to "search" whose query changes each time
    And the model's price is $1 per million input tokens and $0 per million output tokens
    And every model reply uses 400000 input tokens and 0 output tokens

  @TA-03 @TA-08 @TA-20 @should
  Scenario: turns of $0.40 against a $1.00 cap: nothing fires at $0.80, the bound fires at $1.20
    Given the session allows at most 12 turns
    And the session has a cost bound of $1.00
    When the session runs
    Then the kernel ran 3 ordinary turns
    And exactly one final-answer turn followed
    And the final-answer request offered no tools
    And the final-answer request carried an instruction the harness did not send
    And the final-answer request still holds the results of every earlier tool call
    And the status names the bound: "error_max_budget_usd"

  @TA-03 @TA-08 @should
  Scenario: a spend that reaches the cap exactly leaves no budget, so the bound fires
    Given every model reply uses 500000 input tokens and 0 output tokens
    And the session allows at most 12 turns
    And the session has a cost bound of $1.00
    When the session runs
    Then the kernel ran 2 ordinary turns
    And exactly one final-answer turn followed
    And the status names the bound: "error_max_budget_usd"

  @TA-03 @TA-08 @should
  Scenario: the cost bound works on its own, with the turn bound far away
    Given the session allows at most 20 turns
    And the session has a cost bound of $2.00
    When the session runs
    Then the kernel ran 5 ordinary turns
    And exactly one final-answer turn followed
    And the status names the bound: "error_max_budget_usd"

  @TA-05 @TA-08 @may
  Scenario: a weighted-token budget refines the cost bound and ends the session the same way
    The weighted-token refinement (output tokens at the sampling weight plus
    non-cached input tokens at the prefill weight) is part of the cost
    dimension, never a fourth bound: it fires with the cost bound's status
    and through the same final-answer turn.
    Given every model reply uses 2000 input tokens and 200 output tokens
    And the session allows at most 12 turns
    And the session has a cost bound of $1000
    And the token weights are 1 per output token and 0.5 per input token, with a budget of 2500 weighted tokens
    When the session runs
    Then the kernel ran 3 ordinary turns
    And exactly one final-answer turn followed
    And the status names the bound: "error_max_budget_usd"
    And a limit_reached event named the bound "max_cost_usd" and was not soft
    And every cost report carries the weighted tokens of its usage

  @TA-05 @TA-08 @may
  Scenario Outline: weights <sampling> per output token and <prefill> per input token with a budget of <budget>: the bound fires after <n> turns
    Each reply uses 200 output and 2000 input tokens, so a turn weighs
    200 x <sampling> + 2000 x <prefill>. Every budget here is reached
    exactly at the end of the last turn, where the remaining budget is
    zero: the bound fires then, not a turn later. A weight of 0 (the
    schema's minimum) and fractional weights are valid, and any positive
    budget is one.
    Given every model reply uses 2000 input tokens and 200 output tokens
    And the session allows at most 12 turns
    And the session has a cost bound of $1000
    And the token weights are <sampling> per output token and <prefill> per input token, with a budget of <budget> weighted tokens
    When the session runs
    Then the kernel ran <n> ordinary <turns>
    And exactly one final-answer turn followed
    And the status names the bound: "error_max_budget_usd"
    And a limit_reached event named the bound "max_cost_usd" and was not soft
    And every cost report carries the weighted tokens of its usage

    Examples:
      | sampling | prefill | budget | n | turns |
      | 2        | 0.5     | 4200   | 3 | turns |
      | 0        | 1       | 6000   | 3 | turns |
      | 0.5      | 0       | 300    | 3 | turns |
      | 1        | 1       | 1      | 1 | turn  |

  @TA-21 @should
  Scenario: a session the cost bound ended reports error_max_budget_usd everywhere, and no tool runs after its final-answer request
    Only the cost bound can end this session so: a kernel without it is
    skipped, as the rest of this feature is.
    Given the kernel declares capability "bound.max_cost_usd"
    And the session allows at most 12 turns
    And the session has a cost bound of $1.00
    And an observe subscriber "E" at "session-end"
    When the session runs
    Then the status names the bound: "error_max_budget_usd"
    And the session-end payload and the last session_meta row name the same bound
    And no tool ran after the final-answer request
