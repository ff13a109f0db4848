Feature: What the tool-call and post-apply payloads carry
  Every dispatch carries the payload variant of its point (HD-17), and the
  variant carries what PROTOCOL.md §9 says of it: the call of pre-tool-call
  and post-tool-call is the call as its tool was declared (tool, kind and
  provider), and the plan of post-apply holds an item for every resource
  call the turn ran; post-model-response carries the reply's stop reason.
  The call of a tool-call payload and each item of a plan carry the
  arguments the model gave the call. Two providers and all three tool
  kinds are in play, and every call has arguments of its own, so a payload
  that names the wrong provider, drops the plan or blanks an input shows.

  @HD-17 @must
  Scenario: tool-call payloads name each call's provider and kind, and post-apply carries the turn's plan
    Given a data_source tool "read" from provider "fs" declared safe with no key fields
    And a resource tool "save" from provider "store"
    And an interactive tool "ask" from provider "ui"
    And a policy rule "save-ok" that allows "save"
    And an observe subscriber "P" at "pre-tool-call"
    And an observe subscriber "Q" at "post-tool-call"
    And an observe subscriber "V" at "plan-ready"
    And an observe subscriber "A" at "post-apply"
    And an observe subscriber "R" at "post-model-response"
    And the model answers request 1 with calls read(path "a"), save(key "k", text "v"), ask(prompt "ok?"), save(key "m", text "w")
    And the model answers request 2 with call read(path "b")
    And the model answers request 3 with text "Done."
    When the session runs
    Then every pre-tool-call and post-tool-call payload named its call's tool, kind and provider as declared
    And every post-apply payload listed a plan item for each resource call its turn ran
    And every pre-tool-call and post-tool-call payload carried its call's input as the model gave it
    And every plan item of the plan-ready and post-apply payloads carried its call's input as the model gave it
    And every post-model-response payload carried its reply's stop reason
