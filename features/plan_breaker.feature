Feature: The denial circuit breaker's tiers
  The breaker (config.policy.circuit_breaker) has two tiers: denials in a
  row (consecutive) and denials among the last decisions (window_max of
  window). A tier whose threshold is positive trips when the session's
  denials reach it; a zero or absent threshold switches that tier off. Every
  decision on a call counts, in message order, across turns, and a call that
  ran (an answered interactive call too) is an allow that ends a run of
  denials (A-33). A trip takes the limit path: the next model request is
  the final-answer request, which offers no tools.

  @PA-05 @should
  Scenario Outline: a breaker set to consecutive <c>, window <w> and window_max <m> trips after <n> denials
    Every call is denied, with new arguments each turn so that the doom-loop
    detector stays quiet. Both sides of each threshold are covered: a tier
    switched off by a zero never trips (then the other tier decides, or the
    turn bound), a threshold of 1 trips at the first denial.
    Given a resource tool "write" from provider "fs"
    And a policy rule "no" that denies every call
    And the circuit breaker is set to consecutive <c>, window <w> and window_max <m>
    And the session allows at most 10 turns
    And the model answers every request with a call to "write" whose path changes each time
    When the session runs
    Then the model was asked <asked> times
    And model request <asked> offered no tools
    And the session ends with the kernel's circuit-breaker status

    Examples:
      | c | w | m | n | asked |
      | 1 | 0 | 0 | 1 | 2     |
      | 0 | 1 | 1 | 1 | 2     |
      | 0 | 3 | 1 | 1 | 2     |
      | 0 | 4 | 2 | 2 | 3     |
      | 3 | 4 | 0 | 3 | 4     |

  @PA-05 @should
  Scenario: two denied calls of one reply are two denials
    Given a resource tool "write" from provider "fs"
    And a policy rule "no" that denies every call
    And the circuit breaker is set to consecutive 2, window 0 and window_max 0
    And the session allows at most 10 turns
    And the model answers request 1 with calls write(path "1"), write(path "2")
    And the model answers request 2 with text "Done."
    When the session runs
    Then model request 2 offered no tools
    And the session ends with the kernel's circuit-breaker status

  @PA-05 @should
  Scenario: an answered interactive call between two denials is an allow that ends the run
    Given a resource tool "write" from provider "fs"
    And an interactive tool "confirm" from provider "ui"
    And a policy rule "no-writes" that denies "write"
    And the circuit breaker is set to consecutive 2, window 0 and window_max 0
    And the session allows at most 10 turns
    And the model answers request 1 with calls write(path "1")
    And the model answers request 2 with calls confirm(question "Go on?")
    And the model answers request 3 with calls write(path "2")
    And the model answers request 4 with text "Done."
    When the session runs
    Then the model was asked 4 times
    And model request 4 still offered tools, so the circuit breaker had not tripped
