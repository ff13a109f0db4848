Feature: Every bound is checked on its own at step 17 and all share one limit-reached path
  With all three bounds configured, each run makes one of them tight. The
  three runs look the same from outside: the tool calls of the turn in which
  the bound fired still run and their results are returned, then exactly one
  final-answer turn follows, and only the status names the bound. The
  max_turns run proves the requirement for every kernel; the cost and
  wall-clock runs prove it for the bounds a kernel declares and are skipped
  for a kernel that does not declare them. The shape of the final-answer
  request itself is TA-20's (bounds.feature).

  Background:
    Given a data_source tool "read" from provider "fs" declared safe with no key fields
    And a data_source tool "wait" from provider "clock" declared safe with no key fields
    And an interactive tool "ask" from provider "ui"
    And a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And the model's price is $1 per million input tokens and $0 per million output tokens
    And every model reply uses 400000 input tokens and 0 output tokens
    And the model answers request 1 with call read(path "a")
    And the model answers request 2 with calls read(path "b"), wait(ticket "t"), ask(question "proceed?"), write(path "c")
    And the model answers request 3 with text "Here is what I found."

  @TA-19 @must
  Scenario: max_turns fires alone: the firing turn's calls run, then one final-answer turn
    Given the session allows at most 2 turns
    And the session has a cost bound of $1000
    And the session has a wall-clock bound of 600 seconds
    When the session runs
    Then the kernel ran 2 ordinary turns
    And the calls of the last ordinary turn were all carried out before the final-answer request
    And the final-answer request still holds the results of every earlier tool call
    And exactly one final-answer turn followed
    And the status names the bound: "error_max_turns"

  @TA-19 @TA-03 @should
  Scenario: max_cost_usd fires alone: the same shape, another status
    Given the session allows at most 12 turns
    And the session has a cost bound of $0.70
    And the session has a wall-clock bound of 600 seconds
    When the session runs
    Then the kernel ran 2 ordinary turns
    And the calls of the last ordinary turn were all carried out before the final-answer request
    And the final-answer request still holds the results of every earlier tool call
    And exactly one final-answer turn followed
    And the status names the bound: "error_max_budget_usd"

  @TA-19 @TA-04 @should
  Scenario: max_wall_clock_s fires alone: the same shape, another status
    The wait of turn 2 is held until ten seconds after the kernel's session
    clock started: five seconds of margin on each side of the five-second
    bound, so the bound fires at the end of turn 2 however loaded the
    machine is (at a load of 55 a one-second bound ran out in turn 1).
    Given the session allows at most 12 turns
    And the session has a cost bound of $1000
    And the session has a wall-clock bound of 5 seconds
    And the tool "wait" is held until 10 seconds after the session started
    When the session runs
    Then the kernel ran 2 ordinary turns
    And the calls of the last ordinary turn were all carried out before the final-answer request
    And the final-answer request still holds the results of every earlier tool call
    And exactly one final-answer turn followed
    And the final-answer request came at least 5 seconds after the session started
    And the status names the bound: "error_max_wall_clock"

  @TA-19 @should
  Scenario: max_turns and max_cost_usd trip at the same check: one limit path, naming one of them
    Two turns of $0.40 each against max_turns 2 and a cap of $0.80: both
    bounds are reached at the end of turn 2. A kernel without the cost
    bound has one bound here, the max_turns run above: it is skipped.
    Given the kernel declares capability "bound.max_cost_usd"
    And the session allows at most 2 turns
    And the session has a cost bound of $0.80
    When the session runs
    Then the kernel ran 2 ordinary turns
    And the calls of the last ordinary turn were all carried out before the final-answer request
    And exactly one final-answer turn followed
    And the status names one of the bounds that tripped: "error_max_turns" or "error_max_budget_usd"
