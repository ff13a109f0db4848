Feature: A bound of 0
  The schema admits 0 for every bound. For max_cost_usd the specification
  gives it a meaning: the bound has fired once the remaining budget is zero
  or less, and a cap of $0 leaves none from the start, so the bound fires at
  step 17 of the first turn. For max_turns (the root's, or a sub-agent
  profile's), max_wall_clock_s and the weighted-token budget it gives none. 0 is not "unbounded": an unset bound
  is left out of the config (PROTOCOL.md SessionConfig). A kernel may refuse
  such a config or let the bound fire at its first check, and says which in
  its reading bound.zero (PROTOCOL.md §15); these scenarios hold it to that.
  For a kernel that declares no reading they are skipped: nothing is
  asserted about a bound of 0.

  Background:
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And the model answers every request with a call to "search" whose query changes each time

  @TA-03 @TA-08 @should
  Scenario: a cost cap of $0 leaves no budget from the start, so the bound fires at the end of the first turn
    Given the session allows at most 12 turns
    And the session has a cost bound of $0
    When the session runs
    Then the kernel ran 1 ordinary turn
    And exactly one final-answer turn followed
    And the status names the bound: "error_max_budget_usd"

  @TA-02 @must
  Scenario: max_turns 0 is refused or fires at the first check, as the kernel declares
    Given the kernel declares its reading of "bound.zero"
    And the session allows at most 0 turns
    When the session runs
    Then the kernel answered the bound of 0 as its reading "bound.zero" says

  @TA-04 @should
  Scenario: a wall-clock bound of 0 seconds is refused or fires at the first check, as the kernel declares
    Given the kernel declares its reading of "bound.zero"
    And the session allows at most 12 turns
    And the session has a wall-clock bound of 0 seconds
    When the session runs
    Then the kernel answered the bound of 0 as its reading "bound.zero" says

  @TA-05 @may
  Scenario: a weighted-token budget of 0 is refused or fires at the first check, as the kernel declares
    Given the kernel declares its reading of "bound.zero"
    And every model reply uses 2000 input tokens and 200 output tokens
    And the session allows at most 12 turns
    And the session has a cost bound of $1000
    And the token weights are 1 per output token and 1 per input token, with a budget of 0 weighted tokens
    When the session runs
    Then the kernel answered the bound of 0 as its reading "bound.zero" says

  @TA-02 @must
  Scenario: a sub-agent profile's max_turns of 0, in the second profile, is refused or fires at the child's first check, as the kernel declares
    A profile's max_turns is its children's turn cap in place of the
    root's, so the reading covers it too. Every profile is looked at, not
    only the first.
    Given the kernel declares its reading of "bound.zero"
    And the session allows at most 6 turns
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "brief" with tools "search"
    And profile "brief" has max_turns 1
    And a sub-agent profile "none" with tools "search"
    And profile "none" has max_turns 0
    And "brief" sub-agents answer every request with a call to "search" whose query changes each time
    And "none" sub-agents answer every request with a call to "search" whose query changes each time
    And the model answers request 1 with calls spawn_agent(profile "brief", prompt "One step"), spawn_agent(profile "none", prompt "No step")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the kernel answered the bound of 0 as its reading "bound.zero" says
