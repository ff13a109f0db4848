Feature: Folding a model stream into one reply
  The fake model's own replies come as one text delta, tool calls with
  their input and exactly one usage event. Other providers stream the text
  in pieces, send a tool_call with no input for a tool that takes no
  arguments, and report usage in several events. A kernel folds the stream
  into one assistant message (PROTOCOL.md §7.3): the consecutive text
  deltas joined into one text block, a tool_call without input a call with
  input {}, and the usage events added up counter by counter, which is the
  usage the post-model-response observers see.

  @TA-01 @must
  Scenario: text deltas fold into one text block, and a tool_call without input is invoked with {}
    The second call has input: it is invoked, and kept, with exactly that
    input, so a fold that gives every call {} is told from a right one. The
    tool's output is one byte, which is still the calls' result. A third
    call goes to a tool of another provider: each tool/invoke names its own
    tool's provider. The user's prompt is in the first request, and the
    tools are offered to the model as the session declares them.

    Given a data_source tool "clock" from provider "time" declared safe with no key fields
    And a data_source tool "zone" from provider "geo" declared safe with no key fields
    And the model answers request 1 with these stream events:
      """
      [{"type": "text_delta", "text": "Let me "},
       {"type": "text_delta", "text": "look at "},
       {"type": "text_delta", "text": "the clock."},
       {"type": "tool_call", "id": "call-clock-1", "name": "clock"},
       {"type": "tool_call", "id": "call-clock-2", "name": "clock", "input": {"zone": "UTC", "null": null}},
       {"type": "tool_call", "id": "call-zone-1", "name": "zone", "input": {"city": "Oslo"}},
       {"type": "usage", "usage": {"input_tokens": 120, "output_tokens": 12}},
       {"type": "stop", "stop_reason": "tool_use"}]
      """
    And the tool "clock" returns this output:
      """
      7
      """
    And the model answers request 2 with text "It is noon."
    When the session runs
    Then model request 2 holds the assistant message of request 1 with the text "Let me look at the clock." in one text block
    And the call of request 1 has the input {} in its tool/invoke and in the tool_use block of model request 2
    And the call "call-clock-2" has the input {"zone": "UTC", "null": null} in its tool/invoke and in the tool_use block of model request 2
    And model request 2 holds the output "7" of the tool "clock" as the result of every call to it
    And model request 1 holds the user's prompt in a user text block
    And every tool/invoke named its tool's provider as declared
    And every model request offered each of its tools with the name, description and input schema the session declares

  @TA-01 @must
  Scenario: a string output is the result's text itself, its quotes and line break as they are
    A JSON string output goes to the model as the string itself, unquoted
    (PROTOCOL.md §7.4, From output to tool_result): its quotes, backslash
    and line break reach the model as the tool wrote them, not as the JSON
    that spells the string.
    Given a data_source tool "zone" from provider "geo" declared safe with no key fields
    And the tool "zone" returns this output:
      """
      "Oslo: \"CET\", from C:\\zones\nnoon"
      """
    And the model answers request 1 with call zone(city "Oslo")
    And the model answers request 2 with text "It is noon in Oslo."
    When the session runs
    Then model request 2 holds this text as the result of every call to "zone":
      """
      Oslo: "CET", from C:\zones
      noon
      """

  @TA-06 @must
  Scenario: the post-model-response payload carries the reply's usage events added up, counter by counter
    The reply reports cache tokens, so the price list names cache rates:
    what an absent rate costs is open (A-14). Its second usage event
    reports 0 input tokens, which count 0 in the session's totals.
    Given an observe subscriber "watch" at "post-model-response"
    And the model's price tiers are:
      | input tokens from | input tokens until | effective from | effective until | input | output | cache read | cache write |
      |                   |                    |                |                 | 3     | 15     | 0.3        | 3.75        |
    And the model answers request 1 with these stream events:
      """
      [{"type": "text_delta", "text": "Done."},
       {"type": "usage", "usage": {"input_tokens": 1000, "output_tokens": 40, "cache_read_tokens": 300, "cache_write_tokens": 200, "reasoning_tokens": 50}},
       {"type": "usage", "usage": {"input_tokens": 0, "output_tokens": 60, "cache_read_tokens": 7, "cache_write_tokens": 3, "reasoning_tokens": 9}},
       {"type": "stop", "stop_reason": "end_turn"}]
      """
    When the session runs
    Then the post-model-response payload after model request 1 carries the sum of its usage events
    And the post-model-response payloads carried the cost of each reply
    And the session result's totals are the sums of its usage events and of its cost reports
