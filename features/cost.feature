Feature: Cost accounting
  The kernel itself turns every usage event into dollars from the model's
  declared pricing: five counters that never overlap, each at its rate per
  million tokens, reasoning tokens at the output rate, absent counters and
  absent rates adding nothing. One pricing tier applies to each event, the
  one whose half-open time and input-token windows hold the receipt time
  and the event's input_tokens; a price list under which some point is
  matched by no tier or by several is refused before the session starts.
  The fake model never sends a dollar figure, so a matching number proves
  the kernel computed it. All comparisons use a tolerance of 1e-9.

  Background:
    Given a data_source tool "lookup" from provider "kb" declared safe with no key fields
    And an observe subscriber "C" at "post-model-response"

  @TA-06 @must
  Scenario: every usage event is priced from the declared pricing and the costs are summed
    Each cost report names the model whose reply it priced. The second
    usage event reports 0 output tokens, which count 0 in the session
    result's total_output_tokens.
    Given the model's prices per million tokens are: input $3, output $15, cache read $0.30 and cache write $3.75
    And the model answers request 1 with call lookup(id "a")
    And model request 1 reports usage of 1200 input, 340 output and 75 reasoning tokens
    And the model answers request 2 with call lookup(id "b")
    And model request 2 reports usage of 5000 input, 0 output, 4000 cache read and 1000 cache write tokens
    And the model answers request 3 with text "Done."
    And model request 3 reports usage of 777 input and 99 output tokens
    When the session runs
    Then every cost report matches the declared pricing
    And every cost report names the model whose reply it priced
    And the reported costs add up to the session's total cost
    And the session result's totals are the sums of its usage events and of its cost reports
    And the post-model-response payloads carried the cost of each reply

  @TA-23 @must
  Scenario: each usage event's cost is computed on receipt, at the prices in force then, and reported before the next turn starts
    The cost stored with each event is the dollar figure of the price tier
    in force when the event arrived: the first tier of the list ended long
    ago, so only the second can price it, reasoning tokens at its output
    rate and cache tokens at their own rates. The part of TA-23 about replay
    (reopening the session under newer prices must not change the stored
    figures) cannot be observed through this protocol, which has no resume.
    Given the model's price tiers are:
      | effective from       | effective until      | input | output | cache read | cache write |
      |                      | 2001-01-01T00:00:00Z | 100   | 100    | 100        | 100         |
      | 2001-01-01T00:00:00Z |                      | 3     | 15     | 0.3        | 3.75        |
    And the model answers request 1 with call lookup(id "a")
    And model request 1 reports usage of 1200 input, 340 output and 75 reasoning tokens
    And the model answers request 2 with call lookup(id "b")
    And model request 2 reports usage of 5000 input, 20 output, 4000 cache read and 1000 cache write tokens
    And the model answers request 3 with call lookup(id "c")
    And model request 3 reports usage of 777 input and 99 output tokens
    And the model answers request 4 with text "Done."
    And model request 4 reports usage of 10 input and 5 output tokens
    When the session runs
    Then every cost report matches the declared pricing
    And the cost of each reply was reported before the next turn started

  @TA-06 @must
  Scenario: the session total covers the final-answer turn too
    Given the model's price is $2 per million input tokens and $8 per million output tokens
    And the session allows at most 2 turns
    And the model answers every request with a call to "lookup" whose id changes each time
    And every model reply uses 1500 input tokens and 250 output tokens
    When the session runs
    Then every cost report matches the declared pricing
    And the reported costs add up to the session's total cost
    And the kernel reported a cost of $0.005 for model request 3

  @TA-24 @must
  Scenario: five counters at their own rates, reasoning at the output rate
    Given the model's prices per million tokens are: input $3, output $15, cache read $0.30 and cache write $3.75
    And the model answers request 1 with text "Thought it through."
    And model request 1 reports usage of 1000000 input, 200000 output, 500000 cache read, 100000 cache write and 50000 reasoning tokens
    When the session runs
    Then the kernel reported a cost of $7.275 for model request 1

  @TA-24 @must
  Scenario: counters the model does not report add nothing
    Given the model's prices per million tokens are: input $3, output $15, cache read $0.30 and cache write $3.75
    And the model answers request 1 with text "Short answer."
    And model request 1 reports usage of 1000000 input and 200000 output tokens
    When the session runs
    Then the kernel reported a cost of $6 for model request 1

  @TA-24 @must
  Scenario: a counter whose rate is $0 adds nothing
    A declared rate of $0 is a price like any other: its 500,000 cache-read
    tokens cost $0, the other four terms are charged as usual.
    Given the model's prices per million tokens are: input $3, output $15, cache read $0 and cache write $3.75
    And the model answers request 1 with text "Read from the cache."
    And model request 1 reports usage of 1000000 input, 200000 output, 500000 cache read, 100000 cache write and 50000 reasoning tokens
    When the session runs
    Then the kernel reported a cost of $7.125 for model request 1

  @TA-25 @must
  Scenario: 199,999 and 200,000 input tokens fall in different tiers
    Given the model's price tiers are:
      | input tokens from | input tokens until | input | output |
      |                   | 200000             | 1     | 2      |
      | 200000            |                    | 2     | 4      |
    And the model answers request 1 with call lookup(id "a")
    And model request 1 reports usage of 199999 input and 1000 output tokens
    And the model answers request 2 with text "Done."
    And model request 2 reports usage of 200000 input and 1000 output tokens
    When the session runs
    Then the kernel reported a cost of $0.201999 for model request 1
    And the kernel reported a cost of $0.404 for model request 2
    And every cost report matches the declared pricing

  @TA-25 @must
  Scenario: 0 and 1 input tokens fall in different tiers
    The lowest input-token boundary there can be: the first tier holds only
    the usage events of 0 input tokens.
    Given the model's price tiers are:
      | input tokens from | input tokens until | input | output |
      |                   | 1                  | 1     | 2      |
      | 1                 |                    | 2     | 4      |
    And the model answers request 1 with call lookup(id "a")
    And model request 1 reports usage of 0 input and 1000 output tokens
    And the model answers request 2 with text "Done."
    And model request 2 reports usage of 1 input and 1000 output tokens
    When the session runs
    Then the kernel reported a cost of $0.002 for model request 1
    And the kernel reported a cost of $0.004002 for model request 2
    And every cost report matches the declared pricing

  @TA-25 @must
  Scenario: a tier whose time window has ended never matches
    Given the model's price tiers are:
      | effective from       | effective until      | input | output |
      |                      | 2001-01-01T00:00:00Z | 100   | 100    |
      | 2001-01-01T00:00:00Z |                      | 1     | 2      |
    And the model answers request 1 with text "Priced today."
    And model request 1 reports usage of 1000 input and 100 output tokens
    When the session runs
    Then the kernel reported a cost of $0.0012 for model request 1

  @TA-25 @must
  Scenario: a tier whose time window has not begun yet never matches
    The other side of the time window: the open-ended tier starts in 2090,
    so today only the first one prices.
    Given the model's price tiers are:
      | effective from       | effective until      | input | output |
      |                      | 2090-01-01T00:00:00Z | 1     | 2      |
      | 2090-01-01T00:00:00Z |                      | 100   | 100    |
    And the model answers request 1 with text "Priced today."
    And model request 1 reports usage of 1000 input and 100 output tokens
    When the session runs
    Then the kernel reported a cost of $0.0012 for model request 1

  @TA-25 @must
  Scenario: a free model costs nothing
    Given the model is free
    And the model answers request 1 with call lookup(id "a")
    And model request 1 reports usage of 123456 input and 7890 output tokens
    And the model answers request 2 with text "Free of charge."
    When the session runs
    Then the kernel reported a cost of $0 for model request 1
    And every cost report matches the declared pricing

  @TA-25 @must
  Scenario: tiers whose input-token windows overlap are refused before the session starts
    Given the model's price tiers are:
      | input tokens from | input tokens until | input | output |
      |                   | 300000             | 1     | 2      |
      | 200000            |                    | 2     | 4      |
    When the session runs
    Then the kernel refused the session config before the session started

  @TA-25 @must
  Scenario: tiers that leave a gap in input tokens are refused before the session starts
    Given the model's price tiers are:
      | input tokens from | input tokens until | input | output |
      |                   | 100000             | 1     | 2      |
      | 200000            |                    | 2     | 4      |
    When the session runs
    Then the kernel refused the session config before the session started

  @TA-25 @must
  Scenario: tiers whose time windows overlap are refused before the session starts
    Given the model's price tiers are:
      | effective from       | effective until      | input | output |
      |                      | 2090-01-01T00:00:00Z | 1     | 2      |
      | 2000-01-01T00:00:00Z |                      | 2     | 4      |
    When the session runs
    Then the kernel refused the session config before the session started

  @TA-25 @must
  Scenario: tiers that leave a gap in time, even one long past, are refused before the session starts
    Given the model's price tiers are:
      | effective from       | effective until      | input | output |
      |                      | 2001-01-01T00:00:00Z | 1     | 2      |
      | 2002-01-01T00:00:00Z |                      | 2     | 4      |
    When the session runs
    Then the kernel refused the session config before the session started

  @TA-25 @must
  Scenario Outline: a price list that leaves some point unpriced is refused before the session starts: <defect>
    The defect can sit at any boundary of any tier, whatever the order the
    tiers are listed in.
    Given the model's price tiers are:
      | effective from | effective until | input tokens from | input tokens until | input | output |
      | <from1>        | <until1>        | <nfrom1>          | <nuntil1>          | 1     | 2      |
      | <from2>        | <until2>        | <nfrom2>          | <nuntil2>          | 2     | 4      |
    When the session runs
    Then the kernel refused the session config before the session started

    Examples:
      | defect                                                | from1                | until1               | nfrom1 | nuntil1 | from2                | until2               | nfrom2 | nuntil2 |
      | the second tier ends in 2090 and no tier follows it   |                      | 2001-01-01T00:00:00Z |        |         | 2001-01-01T00:00:00Z | 2090-01-01T00:00:00Z |        |         |
      | listed out of time order, no tier before 2000         | 2002-01-01T00:00:00Z |                      |        |         | 2000-01-01T00:00:00Z | 2002-01-01T00:00:00Z |        |         |
      | input-token windows that start at 1 leave 0 unpriced  |                      |                      | 1      | 200000  |                      |                      | 200000 |         |
      | input-token windows [0, 1) and [2, inf) leave 1 out   |                      |                      |        | 1       |                      |                      | 2      |         |

  @TA-25 @must
  Scenario: a model that is not free but declares no tiers is refused before the session starts
    Given the model's price tiers are:
      | input | output |
    When the session runs
    Then the kernel refused the session config before the session started
