Feature: Trace instrumentation
  With telemetry on, the kernel emits a span for every turn, for the model
  call, for each tool-execution phase and for the plan-ready policy chain,
  nested so that any turn can be rebuilt from its trace. The kernel maps its
  own span names to these roles on the wire.

  @TA-17 @must
  Scenario: every turn can be rebuilt from its spans
    Given a data_source tool "read" from provider "fs" declared safe with no key fields
    And an interactive tool "ask" from provider "ui"
    And a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"
    And telemetry is on
    And an observe subscriber "V" at "plan-ready"
    And the subscriber "V" takes a while to answer
    And the model answers request 1 with calls read(path "a"), ask(question "ok?"), write(path "b")
    And the model answers request 2 with call write(path "c")
    And the model answers request 3 with text "Done."
    When the session runs
    Then the trace has one turn span per turn
    And every model request lies inside a model_call span within its turn span
    And every tool invoke lies inside a tool_execution span within its turn span
    And every interactive call lies inside a tool_execution span within its turn span
    And a policy_chain span in each turn encloses that turn's plan decisions and ends before "write" is applied

  @TA-17 @must
  Scenario: a child session's spans link to the parent's trace as the kernel declares
    Whether a sub-agent's session starts a trace of its own or continues
    the parent's under the spawning call is not specified; the kernel
    declares which (trace.child_sessions) and is held to it. Undeclared,
    the scenario is skipped.
    Given the kernel declares its reading of "trace.child_sessions"
    And a spawn-capable tool "spawn_agent" from provider "agents"
    And a policy rule "allow-spawn" that allows "spawn_agent"
    And sub-agents may nest 1 deep with at most 2 running per parent
    And a sub-agent profile "worker" with no tools
    And telemetry is on
    And the model answers request 1 with call spawn_agent(profile "worker", prompt "Check the notes")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the child sessions' spans link to the parent's trace as the kernel's trace.child_sessions says
