Feature: Every bound is checked on its own at step 17 and all share one limit-reached path
  With all three bounds configured, each run makes one of them tight. The
  three runs look the same from outside: the tool calls of the turn in which
  the bound fired still run and their results are returned, then exactly one
  turn without tools follows, and only the status names the bound. The
  max_turns run proves the requirement for every kernel; the cost and
  wall-clock runs are skipped for a kernel that does not declare those
  bounds.

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
  Scenario: max_turns fires alone: the firing turn's calls run, then one tool-less turn
    Given the session allows at most 2 turns
    And the session has a cost bound of $1000
    And the session has a wall-clock bound of 600 seconds
    When the session runs
    Then the model was asked 3 times
    And the calls of model request 2 were all carried out before model request 3
    And model request 3 still holds the results of every earlier tool call
    And model request 3 offered no tools
    And model request 3 carried an instruction the harness did not send
    And no tool ran after model request 3
    And the session ends with status "error_max_turns"

  @TA-19 @TA-03 @should
  Scenario: max_cost_usd fires alone: the same shape, another status
    Given the session allows at most 50 turns
    And the session has a cost bound of $0.70
    And the session has a wall-clock bound of 600 seconds
    When the session runs
    Then the model was asked 3 times
    And the calls of model request 2 were all carried out before model request 3
    And model request 3 still holds the results of every earlier tool call
    And model request 3 offered no tools
    And model request 3 carried an instruction the harness did not send
    And no tool ran after model request 3
    And the session ends with status "error_max_budget_usd"

  @TA-19 @TA-04 @should
  Scenario: max_wall_clock_s fires alone: the same shape, another status
    Given the session allows at most 50 turns
    And the session has a cost bound of $1000
    And the session has a wall-clock bound of 1 seconds
    And the tool "wait" is held until 1.2 seconds after the session started
    When the session runs
    Then the model was asked 3 times
    And the calls of model request 2 were all carried out before model request 3
    And model request 3 still holds the results of every earlier tool call
    And model request 3 offered no tools
    And model request 3 came at least 1 seconds after the session started
    And no tool ran after model request 3
    And the session ends with status "error_max_wall_clock"
