Feature: Turn-level tool-call concurrency
  Which tool calls of one assistant message may run at the same time is
  decided by each operation's concurrency key, not by its kind. A safe
  operation is keyed by provider, tool and the values of its key fields; an
  unsafe or undeclared one takes a lock on its whole provider. Interactive
  calls always run one at a time, whatever they declare, and a model without
  parallel tool calls gets all its calls serialized.

  Overlap is proven with a barrier: each call waits until the stated number
  of calls have started, so a kernel that runs them one after another never
  opens it and the check fails when the barrier's 2 s timeout has passed; a
  kernel that overlaps them opens it as soon as the last one starts.
  Non-overlap is proven from the recorded order: every call is held for a
  300 ms grace window before it is answered, and no call may start before an
  earlier one of the group has been answered. The hold only gives a wrong
  kernel the chance to show an overlap; nothing is ordered by sleeping.
  The model advertises parallel tool calls unless a scenario says otherwise
  (TA-30), and resource calls are allowed by policy so that no permission
  request gets in the way.

  @TA-14 @must
  Scenario: three safe reads from one message run at the same time
    Given a data_source tool "lookup" from provider "kb" declared safe with no key fields
    And calls to "lookup" wait until 3 of them have started, for at most 2 seconds
    And the model answers request 1 with calls lookup(q "a"), lookup(q "b"), lookup(q "c")
    And the model answers request 2 with text "Done."
    When the session runs
    Then 3 calls were in flight at the same time

  @TA-14 @PA-07 @TA-01 @must
  Scenario: reads overlap, interactive calls take turns, and each group ends before the next begins
    The groups follow the turn algorithm (A-16): the reads of step 9, then the
    interactive calls of step 9b, then the plan (step 11) and the applies of
    step 12. That order is TA-01's (an observer can tell a read still in
    flight when an interactive call starts); the overlap of the reads is
    TA-14's and the one-at-a-time interactive calls PA-07's.
    Given a data_source tool "lookup" from provider "kb" declared safe with no key fields
    And a data_source tool "search" from provider "web" declared safe with no key fields
    And an interactive tool "confirm" from provider "ui"
    And a resource tool "save" from provider "store"
    And a policy rule "save-ok" that allows "save"
    And calls to "lookup" and "search" wait until 3 of them have started, for at most 2 seconds
    And every call to "confirm" is held for 300 ms before it is answered
    And an observe subscriber "O" at "plan-ready"
    And the model answers request 1 with calls lookup(q "a"), confirm(question "first?"), search(q "b"), save(key "k"), lookup(q "c"), confirm(question "second?")
    And the model answers request 2 with text "Done."
    When the session runs
    Then 3 calls were in flight at the same time
    And the calls to "confirm" ran one at a time
    And the reads, the interactive calls and the resource calls of turn 1 ran as separate groups in that order

  @TA-15 @must
  Scenario: three calls to an undeclared resource run one after the other
    The third call waits for the second as well as for the first.
    Given a resource tool "deploy" from provider "ops"
    And a policy rule "deploy-ok" that allows "deploy"
    And every call to "deploy" is held for 300 ms before it is answered
    And the model answers request 1 with calls deploy(target "a"), deploy(target "b"), deploy(target "c")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the calls to "deploy" ran one at a time
    And the tool "deploy" was invoked 3 times

  @TA-16 @must
  Scenario: writes to different paths overlap, writes to the same path take turns
    The write declares safe with key field "path", so its key is (fs, write,
    path). The writes to "a" and "b" must be in flight together; the second
    write to "a" must wait until the first has been answered.
    Given a resource tool "write" from provider "fs" declared safe with key fields "path"
    And a policy rule "write-ok" that allows "write"
    And calls to "write" wait until 2 of them have started, for at most 2 seconds
    And every call to "write" is held for 300 ms before it is answered
    And the model answers request 1 with calls write(path "a", text "1"), write(path "b", text "2"), write(path "a", text "3")
    And the model answers request 2 with text "Done."
    When the session runs
    Then 2 calls were in flight at the same time
    And the calls to "write" with path "a" ran one at a time
    And the tool "write" was invoked 3 times

  @TA-16 @must
  Scenario: a conflict with any earlier call of the message counts, not only with the first
    Writes to "b", "a" and "a": the second write to "a" conflicts with the
    second call of the message, not with the first.
    Given a resource tool "write" from provider "fs" declared safe with key fields "path"
    And a policy rule "write-ok" that allows "write"
    And calls to "write" wait until 2 of them have started, for at most 2 seconds
    And every call to "write" is held for 300 ms before it is answered
    And the model answers request 1 with calls write(path "b", text "1"), write(path "a", text "2"), write(path "a", text "3")
    And the model answers request 2 with text "Done."
    When the session runs
    Then 2 calls were in flight at the same time
    And the calls to "write" with path "a" ran one at a time
    And the tool "write" was invoked 3 times

  @TA-16 @must
  Scenario: the key holds every key field: writes that differ only in the second one overlap
    Given a resource tool "write" from provider "fs" declared safe with key fields "path,mode"
    And a policy rule "write-ok" that allows "write"
    And calls to "write" wait until 2 of them have started, for at most 2 seconds
    And every call to "write" is held for 300 ms before it is answered
    And the model answers request 1 with calls write(path "a", mode "r"), write(path "a", mode "w"), write(path "a", mode "r")
    And the model answers request 2 with text "Done."
    When the session runs
    Then 2 calls were in flight at the same time
    And the calls to "write" with mode "r" ran one at a time
    And the tool "write" was invoked 3 times

  @TA-16 @must
  Scenario: key values are compared as JSON values: one object written in another key order is the same key
    Given a resource tool "write" from provider "fs" declared safe with key fields "path"
    And a policy rule "write-ok" that allows "write"
    And every call to "write" is held for 300 ms before it is answered
    And the model answers request 1 with these calls:
      | tool  | input                                        |
      | write | {"path":{"dir":"a","file":"x"},"text":"1"}   |
      | write | {"path":{"file":"x","dir":"a"},"text":"2"}   |
    And the model answers request 2 with text "Done."
    When the session runs
    Then the calls to "write" ran one at a time
    And the tool "write" was invoked 2 times

  @TA-16 @must
  Scenario: a read declared unsafe is serialized although it only reads
    Scheduling follows the declaration, not the kind: an unsafe data_source
    locks its provider like any unsafe operation.
    Given a data_source tool "scan" from provider "disk" declared unsafe
    And every call to "scan" is held for 300 ms before it is answered
    And the model answers request 1 with calls scan(dir "a"), scan(dir "b")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the calls to "scan" ran one at a time
    And the tool "scan" was invoked 2 times

  @TA-16 @must
  Scenario: undeclared resources of different providers run at the same time
    The provider-wide lock of an undeclared operation covers its own
    provider only.
    Given a resource tool "deploy" from provider "ops"
    And a resource tool "publish" from provider "cdn"
    And a policy rule "deploy-ok" that allows "deploy"
    And a policy rule "publish-ok" that allows "publish"
    And calls to "deploy" and "publish" wait until 2 of them have started, for at most 2 seconds
    And the model answers request 1 with calls deploy(target "a"), publish(target "b")
    And the model answers request 2 with text "Done."
    When the session runs
    Then 2 calls were in flight at the same time

  @TA-29 @must
  Scenario: an undeclared operation locks its whole provider, even against a safe one
    Given a resource tool "w1" from provider "p"
    And a resource tool "w2" from provider "p" declared safe with key fields "path"
    And a policy rule "p-ok" that allows the tools of provider "p"
    And every call to "w1" and "w2" is held for 300 ms before it is answered
    And the model answers request 1 with calls w1(path "a"), w2(path "b")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the calls to "w1" and "w2" ran one at a time
    And the tool "w2" was invoked 1 time

  @TA-29 @must
  Scenario: an unsafe provider serializes even calls to different tools
    Given a resource tool "start" from provider "vm" declared unsafe
    And a resource tool "stop" from provider "vm" declared unsafe
    And a policy rule "vm-ok" that allows the tools of provider "vm"
    And every call to "start" and "stop" is held for 300 ms before it is answered
    And the model answers request 1 with calls start(id "1"), stop(id "2")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the calls to "start" and "stop" ran one at a time

  @TA-29 @must
  Scenario: two undeclared reads of one provider run as the kernel's reading of A-15 says
    Whether an undeclared ConcurrencySpec makes a data_source sequential
    (tool/data-types.md: safe false) or concurrent (the matrix row) is open
    (A-15). A kernel that declares its reading
    concurrency.undeclared_data_source (sequential or concurrent) is held to
    it; without a declaration what it did is only recorded. The barrier opens
    at once for a concurrent kernel and keeps a sequential kernel's first
    call in flight for a second, the window in which an overlap would show.
    Given a data_source tool "stat" from provider "disk"
    And calls to "stat" wait until 2 of them have started, for at most 1 second
    And the model answers request 1 with calls stat(path "a"), stat(path "b")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the calls to "stat" ran as the kernel reads undeclared data_source operations

  @TA-28 @must
  Scenario: an interactive tool that wrongly declares itself safe still runs one call at a time
    The second interactive request may reach the frontend only after the
    frontend answered the first.
    Given an interactive tool "confirm" from provider "ui" declared safe with no key fields
    And every call to "confirm" is held for 300 ms before it is answered
    And the model answers request 1 with calls confirm(question "one?"), confirm(question "two?")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the calls to "confirm" ran one at a time
    And the frontend received 2 interactive requests for "confirm"

  @PA-07 @must
  Scenario: two interactive calls in one message run one after the other
    Given an interactive tool "confirm" from provider "ui"
    And every call to "confirm" is held for 300 ms before it is answered
    And the model answers request 1 with calls confirm(question "one?"), confirm(question "two?")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the calls to "confirm" ran one at a time
    And the frontend received 2 interactive requests for "confirm"

  @TA-30 @must
  Scenario: a model without parallel tool calls gets its calls one at a time
    The same safe reads that must overlap for a parallel model (TA-14) must
    not overlap here.
    Given the model does not support parallel tool calls
    And a data_source tool "lookup" from provider "kb" declared safe with no key fields
    And every call to "lookup" is held for 300 ms before it is answered
    And the model answers request 1 with calls lookup(q "a"), lookup(q "b"), lookup(q "c")
    And the model answers request 2 with text "Done."
    When the session runs
    Then the calls to "lookup" ran one at a time
    And the tool "lookup" was invoked 3 times
