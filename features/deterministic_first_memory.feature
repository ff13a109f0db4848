Feature: Deterministic-first memory writes
  memory/write (PROTOCOL.md §17.5) is how a running tool writes session
  memory. A write the kernel commits is answered {} and applied at once,
  every key of it; a write it does not commit is answered with an error, so
  the tool is never told a value was kept when it was not: -32005 for a
  session the kernel does not know, -32602 for a session that does not run
  the profile (running or ended) and for a call_id that is not in flight.

  @DF-08 @seed
  Scenario: memory/write to a session without the profile, running or ended, and to one the kernel never ran is refused
    Given a data_source tool "probe" from provider "t"
    And a data_source tool "stray" from provider "t"
    And the tool "probe" writes seen true to memory as it runs
    And the tool "stray" writes seen true to memory of session "df-never-ran" as it runs
    And the model answers request 1 with calls probe(x 1), stray(x 2)
    And the model answers request 2 with text "Done."
    When the session runs
    Then the session ends with status "completed"
    When the harness writes seen true to memory of the ended session for the call of "probe"
    Then the kernel refused the 2 memory/writes of "probe" to its own session, each with error -32602
    And the kernel refused the 1 memory/write of "stray" to session "df-never-ran", each with error -32005

  @DF-08 @seed
  Scenario: every key of a write is committed at once, and a call that has answered can no longer write
    Given the session uses the deterministic-first profile
    And a data_source tool "verify" from provider "bank"
    And a data_source tool "late" from provider "bank"
    And the tool "verify" writes verified true, tier "gold", level 3 to memory as it runs
    And the tool "late" writes stale true to memory in the name of the finished call of "verify"
    And the model answers request 1 with call verify(customer "c-1")
    And the model answers request 2 with call late(x 1)
    And the model answers request 3 with text "Done."
    When the session runs
    Then the session ends with status "completed"
    And the run's memory holds verified true, tier "gold", level 3
    And the kernel refused the 1 memory/write of "late" to its own session, each with error -32602
