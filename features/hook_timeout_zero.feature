Feature: A hook timeout of 0 ms
  The schema admits hooks.default_timeout_ms 0, and the specification gives
  the default no value (A-24) and 0 no meaning. A kernel may read it as no
  deadline at all, as a deadline that has passed before the call is made,
  or refuse the config, and says which in its reading hooks.zero_timeout
  (PROTOCOL.md §15); this scenario holds it to that. Whatever it reads, a
  dispatch it sends announces timeout_ms 0, the effective timeout from the
  config. For a kernel that declares no reading the scenario is skipped:
  nothing is asserted about a timeout of 0.

  @HD-05 @must
  Scenario: an observer whose effective timeout is 0 ms, answering after 300 ms, is handled as the kernel declares
    Given the kernel declares its reading of "hooks.zero_timeout"
    And the default hook timeout is 0 ms
    And an observe subscriber "Z" at "pre-model-call" that answers after 300 ms
    And the model answers request 1 with text "Finished."
    When the session runs
    Then the kernel treated the 0 ms timeout of "Z" as its reading "hooks.zero_timeout" says
