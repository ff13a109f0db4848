Feature: Hook declarations are checked when the config loads
  A hook block that subscribes a plugin at a point the plugin does not
  advertise is refused when the session config is loaded, before anything
  runs, rather than when the point first fires.

  @HD-16 @must
  Scenario: a subscription at a point the plugin does not support is refused at load
    Given a transform subscriber "FH" at "pre-model-call"
    And the plugin of hook subscriber "FH" supports only "post-tool-call"
    When the session runs
    Then the kernel refuses the session config naming "FH"
    And no hook dispatch reached the harness

  @HD-16 @must
  Scenario: a subscription at a point the plugin supports is accepted
    Given an observe subscriber "FH" at "post-model-response"
    And the plugin of hook subscriber "FH" supports only "post-model-response", "post-tool-call"
    And the model answers request 1 with text "Finished."
    When the session runs
    Then the session ends with status "completed"
    And the subscribers at "post-model-response" were dispatched in this order: "FH"

  @HD-16 @must
  Scenario: an unsupported subscription declared by a later block is refused as well
    Every block is checked, not only the first.
    Given an observe subscriber "OK" at "post-model-response"
    And a transform subscriber "FH" at "pre-model-call"
    And the plugin of hook subscriber "FH" supports only "post-tool-call"
    When the session runs
    Then the kernel refuses the session config naming "FH"
    And no hook dispatch reached the harness
