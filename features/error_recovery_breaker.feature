Feature: Error recovery: when crashes trip the circuit breaker
  What the circuit breaker counts of tool crashes is open (A-33). These
  scenarios hold a kernel to the reading it declares: with
  errors.crash_breaker.count = per_provider_in_a_row (PROTOCOL.md §15) the
  crashes of each provider are counted in a row, an answered call of that
  provider (a success, an error, or an output its output_schema rejects)
  sets its count back to 0, and the breaker trips at the end of the turn in
  which one provider's count reaches the threshold: the consecutive tier,
  or window_max when consecutive is 0; a tier at 0 is off. A kernel that
  declares another reading, or none, is judged by the plain ER-10 scenario
  in error_recovery.feature only; the checks here are not reached for it
  (so they leave the ending's status to that scenario too).

  The model makes one call per turn, so "in a row" is the order of the
  turns. Data sources answer without asking.

  @ER-10 @should
  Scenario: an answered call, or one whose output its schema rejects, ends a run of crashes
    With two crashes in a row as the threshold, crash, answer, crash,
    rejected output, crash never holds two crashes of one provider in a row.
    Given a data_source tool "probe" from provider "sensors" declared safe with no key fields
    And the tool "probe" crashes on calls whose target starts with "crash"
    And the tool "probe" answers an output that breaks its output_schema on calls whose target starts with "bad"
    And the circuit breaker is set to trip after 2 crashes in a row only
    And the model answers request 1 with call probe(target "crash-1")
    And the model answers request 2 with call probe(target "ok-2")
    And the model answers request 3 with call probe(target "crash-3")
    And the model answers request 4 with call probe(target "bad-4")
    And the model answers request 5 with call probe(target "crash-5")
    And the model answers request 6 with text "The probe is unreliable."
    When the session runs
    Then the circuit breaker never tripped

  @ER-10 @should
  Scenario Outline: the crashes of provider <crashing>, among seven that answer, trip the breaker at the threshold, naming it
    Every turn calls every provider once; only "<crashing>" crashes. Its
    second crash in a row trips the breaker at the end of turn 2, whatever
    the others do; the third turn is never an ordinary one.
    Given the data_source tools "alpha", "bravo", "charlie", "delta", "echo", "foxtrot" and "golf", each from a provider of its own name, declared safe with no key fields
    And a data_source tool "probe" from provider "<crashing>" declared safe with no key fields
    And the tool "probe" crashes on calls whose target starts with "crash"
    And the circuit breaker is set to trip after 2 crashes in a row only
    And the model answers request 1 with calls alpha(q "1"), bravo(q "1"), charlie(q "1"), delta(q "1"), echo(q "1"), foxtrot(q "1"), golf(q "1") and probe(target "crash-1")
    And the model answers request 2 with calls alpha(q "2"), bravo(q "2"), charlie(q "2"), delta(q "2"), echo(q "2"), foxtrot(q "2"), golf(q "2") and probe(target "crash-2")
    And the model answers request 3 with text "Done."
    When the session runs
    Then the circuit breaker tripped right after turn 2, naming provider "<crashing>"

    Examples:
      | crashing |
      | zulu     |
      | yankee   |
      | xray     |

  @ER-10 @should
  Scenario: with both tiers set, the in-a-row threshold trips before the window's
    Two crashes in a row reach the consecutive threshold while the window
    tier still needs four: a kernel that reads the window's threshold
    whenever one is set trips two turns late.
    Given a data_source tool "probe" from provider "sensors" declared safe with no key fields
    And the tool "probe" crashes on calls whose target starts with "crash"
    And the circuit breaker is set to trip after 2 in a row or 4 among the last 8 decisions
    And the model answers request 1 with call probe(target "crash-1")
    And the model answers request 2 with call probe(target "crash-2")
    And the model answers request 3 with call probe(target "crash-3")
    And the model answers request 4 with call probe(target "crash-4")
    And the model answers request 5 with text "Done."
    When the session runs
    Then the circuit breaker tripped right after turn 2, naming provider "sensors"

  @ER-10 @should
  Scenario: a threshold of one crash trips at the first crash, not before it
    Given a data_source tool "probe" from provider "sensors" declared safe with no key fields
    And the tool "probe" crashes on calls whose target starts with "crash"
    And the circuit breaker is set to trip after 1 crash in a row only
    And the model answers request 1 with call probe(target "ok-1")
    And the model answers request 2 with call probe(target "crash-2")
    And the model answers request 3 with call probe(target "ok-3")
    And the model answers request 4 with text "Done."
    When the session runs
    Then the circuit breaker tripped right after turn 2, naming provider "sensors"

  @ER-10 @should
  Scenario: the window tier alone trips at its count of crashes in a row
    Consecutive is 0 (off), so window_max is the threshold.
    Given a data_source tool "probe" from provider "sensors" declared safe with no key fields
    And the tool "probe" crashes on calls whose target starts with "crash"
    And the circuit breaker is set to trip after 2 crashes among the last 6 decisions only
    And the model answers request 1 with call probe(target "crash-1")
    And the model answers request 2 with call probe(target "crash-2")
    And the model answers request 3 with call probe(target "ok-3")
    And the model answers request 4 with text "Done."
    When the session runs
    Then the circuit breaker tripped right after turn 2, naming provider "sensors"

  @ER-10 @should
  Scenario: a breaker with both tiers off never trips on crashes
    Given a data_source tool "probe" from provider "sensors" declared safe with no key fields
    And the tool "probe" crashes on calls whose target starts with "crash"
    And the circuit breaker is set with both tiers off
    And the model answers request 1 with call probe(target "crash-1")
    And the model answers request 2 with call probe(target "crash-2")
    And the model answers request 3 with call probe(target "crash-3")
    And the model answers request 4 with text "The probe is down."
    When the session runs
    Then the circuit breaker never tripped
