Feature: Turn order
  Every turn runs the 18 steps of RunTurn in their documented order. The
  harness hosts every provider the kernel talks to, so the order in which
  requests reach it is the order of the kernel's steps.

  Background:
    Given a data_source tool "read" from provider "fs" declared safe with no key fields
    And an interactive tool "ask" from provider "ui"
    And a resource tool "write" from provider "fs"
    And a policy rule "allow-write" that allows "write"

  @TA-01 @must
  Scenario: one call of each kind runs in the documented step order
    Given an observe subscriber "O" at every hook point
    And the model answers request 1 with calls read(path "a"), ask(question "proceed?"), write(path "b")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the requests of turn 1 arrived in this order:
      | context/assemble           |
      | hook pre-model-call O      |
      | model/stream               |
      | hook post-model-response O |
      | hook pre-tool-call O       |
      | hook pre-tool-call O       |
      | hook pre-tool-call O       |
      | invoke read                |
      | interactive ask            |
      | hook plan-ready O          |
      | invoke write               |
      | hook post-tool-call O      |
      | hook post-tool-call O      |
      | hook post-tool-call O      |
      | hook post-apply O          |
    And turn 2 started with "context/assemble"
    And model request 2 ends with the assistant message of request 1 followed by one result for each of its calls
    And every frontend/interactive carried its call's input

  @TA-01 @must
  Scenario: the calls of one kind keep the order of the model's message
    Given an observe subscriber "P" at "pre-tool-call"
    And an observe subscriber "Q" at "post-tool-call"
    And the model answers request 1 with calls write(path "x"), read(path "y"), write(path "z")
    And the model answers request 2 with text "Finished."
    When the session runs
    Then the requests of turn 1 arrived in this order:
      | context/assemble  |
      | model/stream      |
      | hook pre-tool-call P |
      | hook pre-tool-call P |
      | hook pre-tool-call P |
      | invoke read       |
      | invoke write      |
      | invoke write      |
      | hook post-tool-call Q |
      | hook post-tool-call Q |
      | hook post-tool-call Q |
    And model request 2 ends with the assistant message of request 1 followed by one result for each of its calls
