Feature: The tools a turn offers and the calls it cannot run
  A model request offers the session's tools as they are declared
  (PROTOCOL.md §9 ToolSpec: the ToolSchema's name and description, and
  the JSON Schema of the arguments when one is sent), including a tool
  that declares no input schema, which is optional. The model may also
  call a tool the session does not have: the call runs nowhere, and like
  every call it gets a result in the next request (§12), an error one,
  since a result without is_error reads as a tool that ran (§7.4); the
  session goes on.

  @TA-01 @must
  Scenario: a tool that declares no input schema is offered and called like any other
    The tool "clock" declares no input schema, so the requests may offer
    it without one, or with one that asks nothing of its arguments; the
    tool "zone" declares one, which is sent as declared or not at all.
    Given a data_source tool "clock" from provider "time" declared safe with no key fields
    And the tool "clock" declares no input schema
    And a data_source tool "zone" from provider "geo" declared safe with no key fields
    And the model answers request 1 with calls clock(), zone(city "Oslo")
    And the model answers request 2 with text "It is noon in Oslo."
    When the session runs
    Then every model request offered each of its tools with the name, description and input schema the session declares
    And model request 2 ends with the assistant message of request 1 followed by one result for each of its calls

  @TA-01 @must
  Scenario: a call of a tool the session does not declare gets an error result, and the session goes on
    The model calls "erase", which no tool of the session is, beside a
    call of "read": no provider is asked to run it, its result in the next
    request is an error, and the model's next answer ends the session.
    Given a data_source tool "read" from provider "fs" declared safe with no key fields
    And the model answers request 1 with calls read(path "a"), erase(path "b")
    And the model answers request 2 with text "Done."
    When the session runs
    Then model request 2 ends with the assistant message of request 1 followed by one result for each of its calls
    And the call of request 1 to the undeclared tool "erase" never ran, and model request 2 holds an error result for it
