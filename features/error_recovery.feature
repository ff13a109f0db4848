Feature: Error recovery
  The fake model answers with classified model errors (category, message,
  retryable, retry-after) and the fake tools crash, fail or break their
  output schema. A kernel backs off and retries only transient model errors
  (rate_limited, overloaded), caps retries per call and per session, never
  resends a request that failed for a reason a resend cannot fix, shrinks
  the context or fails cleanly on overflow, reports a content filter as a
  condition of its own, and turns a failed tool call into that call's error
  result while the session goes on.

  Retry timing is read from the recorded arrival times: the wait before a
  retry runs from the harness's error answer to the retry's arrival, so it
  is never shorter than the kernel's own. The form of the jitter is open
  (A-26); the checks follow the kernel's readings (PROTOCOL.md §15):
  retry.jitter_min_ratio (a floor on every wait, none when undeclared),
  retry.jitter_max_ratio (2 when undeclared) and retry.added_delay_ms (0).
  Silence is no free pass: taken together, the waits of each retry rank
  must be at least as long as full jitter's, the widest form (a wait
  anywhere from 0 to its nominal delay base·factor^(k−1)): more than one
  in eight of them must reach the fraction of nominal that full jitter
  reaches but for a chance of one in a million per check. Few
  retries decide little, so two scenarios make many: they pin the base
  delay and the growth down. A
  retry-after is a floor with no jitter excuse. A retry that has not come
  by its ceiling (its upper bound plus a margin of its own size or three
  seconds) fails there, with the figure: the harness ends the session
  instead of waiting for the scenario timeout. max_retries counts retries
  after the first attempt ("Retries per call" in the protocol), so a call
  is attempted at most max_retries + 1 times.

  That the waits are jittered is asserted only for a kernel that announces
  them (delay_ms in its retry events, PROTOCOL.md §8.4): arrival times
  cannot tell jitter from the machine's scheduling noise, but announced
  delays can be judged exactly, against the same bounds, and the retry
  must not come sooner than announced. A kernel that announces no delay
  passes ER-01 only partially: its jitter is not verified. Not asserted: raw retry-after
  headers (the protocol carries retry_after_ms only), the default of 5
  retries outside the slow run (its schedule alone takes at least 7.75 s),
  and how often idempotent resources and data sources are retried unless
  the kernel declares it (errors.tool_retries; allowed, not required: the
  attempt numbers are checked, 1 on the first try and one more on each
  retry).

  @ER-01 @must
  Scenario Outline: <category> is retried with growing waits until it succeeds
    Given retry settings of base 40 ms, factor 2 and 3 retries per call
    And the model fails requests 1 to 3 with "<category>"
    And the model answers request 4 with text "Recovered."
    When the session runs
    Then the model was asked 4 times
    And model requests 1 to 4 are the same request with attempts counting up
    And the waits before model requests 2 to 4 follow a backoff from 40 ms growing by a factor of 2
    And every retry event's delay_ms lies within the kernel's backoff bounds from 40 ms growing by a factor of 2, and no retry came sooner
    And the session ends with status "completed"

    Examples:
      | category     |
      | rate_limited |
      | overloaded   |

  @ER-01 @ER-05 @must
  Scenario: twelve calls retried twice: taken together, the waits start at the base delay and grow
    Full jitter keeps all but one of the twelve first retries, or of the
    twelve second retries, below 21% of their nominal delay only with a
    chance of one in two million each; a kernel that retries at once, or
    waits the base delay every time (a tenth of a second retry's nominal
    delay), does.
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And retry settings of base 40 ms, factor 10 and 2 retries per call
    And a session-wide cap of 30 retries
    And the model fails each of 12 calls 2 times with "rate_limited", answers each with a call to "search" whose query changes each time, then with text "Done."
    When the session runs
    Then the waits of all 24 retries, taken together, follow a backoff from 40 ms growing by a factor of 10
    And the retry events' delay_ms, taken together, follow a backoff from 40 ms growing by a factor of 10
    And every retry event's delay_ms lies within the kernel's backoff bounds from 40 ms growing by a factor of 10, and no retry came sooner
    And the retry events' delay_ms are jittered

  @ER-01 @must
  Scenario: a retry-after longer than the backoff is honoured in full
    Given retry settings of base 20 ms, factor 2 and 3 retries per call
    And the model fails request 1 with "rate_limited" and a retry-after of 300 ms
    And the model answers request 2 with text "Recovered."
    When the session runs
    Then the model was asked 2 times
    And model requests 1 to 2 are the same request with attempts counting up
    And model request 2 came at least 300 ms after the answer to model request 1

  @ER-01 @must
  Scenario: a long retry-after is honoured in full, whatever the jitter draws
    A loop that applies its jitter after taking the retry-after into
    account retries up to half of it early: a second here, far beyond any
    scheduling delay.
    Given retry settings of base 20 ms, factor 2 and 3 retries per call
    And the model fails request 1 with "rate_limited" and a retry-after of 2000 ms
    And the model answers request 2 with text "Recovered."
    When the session runs
    Then model request 2 came at least 2000 ms after the answer to model request 1

  @ER-02 @must
  Scenario: retries of one call stop at max_retries and the turn fails
    Given retry settings of base 10 ms, factor 2 and 3 retries per call
    And the model fails every request with "overloaded"
    When the session runs
    Then the model was asked 4 times
    And model requests 1 to 4 were attempts of one call, counting up
    And the session ends with the kernel's model-error status

  @ER-02 @must
  Scenario: the session-wide cap stops retries even though each call stays under its own cap
    The per-call cap (2) is never reached: every call fails once and its
    one retry succeeds. After 3 retries in the session the fourth failure is
    not retried, so the turn fails on request 7.
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And retry settings of base 10 ms, factor 2 and 2 retries per call
    And a session-wide cap of 3 retries
    And the model fails every odd-numbered request with "rate_limited" and answers every even-numbered one with a call to "search" whose query changes each time
    When the session runs
    Then the model was asked 7 times
    And the session ends with the kernel's model-error status

  @ER-03 @must
  Scenario Outline: <category> is never resent as it is
    The context provider's text does not change, so a resend in a later
    turn would be the same request too. Whether the kernel names the cause
    is not ER-03's (for context_length_exceeded it is ER-06's).
    Given the context provider contributes the same text every turn and cannot shrink it
    And the model fails request 1 with "<category>"
    And the model answers request 2 with text "Recovered."
    When the session runs
    Then no model request repeated failed model request 1

    Examples:
      | category                |
      | auth_error              |
      | invalid_request         |
      | context_length_exceeded |

  @ER-03 @must
  Scenario Outline: <category> is never resent as it is, even with retries configured
    Retries switched on by a retry block apply to the transient categories
    only.
    Given retry settings of base 10 ms, factor 2 and 3 retries per call
    And the context provider contributes the same text every turn and cannot shrink it
    And the model fails request 1 with "<category>"
    And the model answers request 2 with text "Recovered."
    When the session runs
    Then no model request repeated failed model request 1

    Examples:
      | category                |
      | auth_error              |
      | invalid_request         |
      | context_length_exceeded |

  @ER-03 @must
  Scenario Outline: <category> is never resent as it is, even when the provider marks it retryable
    The provider's retryable flag is a hint; the category decides. A loop
    that retries whatever the provider marks retryable resends it.
    Given retry settings of base 10 ms, factor 2 and 3 retries per call
    And the context provider contributes the same text every turn and cannot shrink it
    And the model fails request 1 with "<category>" that the provider marks retryable
    And the model answers request 2 with text "Recovered."
    When the session runs
    Then no model request repeated failed model request 1

    Examples:
      | category        |
      | auth_error      |
      | invalid_request |

  @ER-04 @should
  Scenario Outline: a crashed <kind> call becomes an error result and the session goes on
    Given a <kind> tool "probe" from provider "sensors" that the policy allows
    And the tool "probe" crashes on every call
    And the model answers request 1 with call probe(target "boiler")
    And the model answers request 2 with text "The probe is down."
    When the session runs
    Then model request 2 holds an error result for the call of request 1
    And the session ends with status "completed"

    Examples:
      | kind        |
      | data_source |
      | resource    |

  @ER-05 @must
  Scenario: without retry settings the shipped defaults apply (500 ms, factor 2)
    Two retries at the default schedule: at least 250 ms and 500 ms with
    the reference's declared jitter floor. The default count (5 retries)
    is not exercised here: its schedule alone is at least 7.75 s.
    Given the model fails requests 1 to 2 with "rate_limited"
    And the model answers request 3 with text "Recovered."
    When the session runs
    Then the model was asked 3 times
    And the waits before model requests 2 to 3 follow a backoff from 500 ms growing by a factor of 2

  @ER-05 @must
  Scenario: without retry settings, twenty first retries wait, taken together, like the shipped base of 500 ms
    With 20 waits, full jitter keeps all but two of them below 36% of the
    500 ms base only with a chance of one in a million; a kernel whose
    default base is 100 ms never reaches 20%, and a loaded machine would
    have to stall three of its waits by 80 ms to hide that. The delays the
    kernel announces carry no such noise and are judged alike.
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And the model fails each of 20 calls 1 time with "rate_limited", answers each with a call to "search" whose query changes each time, then with text "Done."
    When the session runs
    Then the waits of all 20 retries, taken together, follow a backoff from 500 ms growing by a factor of 2
    And the retry events' delay_ms, taken together, follow a backoff from 500 ms growing by a factor of 2

  @ER-01 @ER-05 @must @slow
  Scenario: a base delay of 4 s is taken from the retry settings, judged on twenty first retries
    Judged from arrival times alone, whatever the kernel announces: noise
    only lengthens a wait. With 20 waits, full jitter keeps all but two of
    them below 36% of the 4 s base (1.45 s) only with a chance of one in a
    million. A kernel that keeps a built-in base of 1 s or less whatever
    the config says never reaches 25%, and a loaded machine would have to
    stall three of its waits by 450 ms to hide that. The waits take about
    a minute (at least 40 s with the reference's jitter floor), so the
    scenario is slow.
    Given a data_source tool "search" from provider "web" declared safe with no key fields
    And retry settings of base 4000 ms, factor 2 and 1 retries per call
    And a session-wide cap of 30 retries
    And the model fails each of 20 calls 1 time with "rate_limited", answers each with a call to "search" whose query changes each time, then with text "Done."
    When the session runs
    Then the waits of all 20 retries, taken together, follow a backoff from 4000 ms growing by a factor of 2
    And the retry events' delay_ms, taken together, follow a backoff from 4000 ms growing by a factor of 2

  @ER-05 @must @slow
  Scenario: without retry settings a failing call is retried the shipped default of 5 times
    Five retries at the default schedule (500 ms, factor 2) wait at least
    7.75 s with the reference's jitter floor and up to 31 s within the
    widest jitter a kernel may declare, so the scenario is slow: conform
    run leaves it out unless --slow, and ER-05 then passes only partially.
    Given the model fails every request with "rate_limited"
    When the session runs
    Then the model was asked 6 times

  @ER-05 @must
  Scenario: base delay, factor and retry count are taken from the retry settings
    Given retry settings of base 40 ms, factor 3 and 2 retries per call
    And the model fails every request with "rate_limited"
    When the session runs
    Then the model was asked 3 times
    And the waits before model requests 2 to 3 follow a backoff from 40 ms growing by a factor of 3

  @ER-05 @must
  Scenario: a base delay longer than the shipped default is taken from the retry settings
    The scenarios above set bases below the 500 ms default, so a kernel
    that kept the default would only wait longer than asked. Here the base
    is 1600 ms: a kernel that keeps 500 ms waits at most 500 ms, under the
    floor of a declared jitter reading (retry.jitter_min_ratio 0.5: 800
    ms). One wait decides nothing for a kernel that declares no floor.
    Given retry settings of base 1600 ms, factor 2 and 1 retries per call
    And the model fails request 1 with "rate_limited"
    And the model answers request 2 with text "Recovered."
    When the session runs
    Then the model was asked 2 times
    And the waits before model requests 2 to 2 follow a backoff from 1600 ms growing by a factor of 2

  @ER-05 @must
  Scenario Outline: a retry block that sets only <attribute> is a configuration error
    Given a retry block that sets only <attribute>
    When the session runs
    Then the kernel refuses the session config

    Examples:
      | attribute      |
      | base_delay_ms  |
      | backoff_factor |
      | max_retries    |

  @ER-06 @must
  Scenario: context overflow asks the context provider to reduce and sends a smaller request
    Given the context provider contributes a long text every turn and a short one when asked to reduce
    And the model fails request 1 with "context_length_exceeded"
    And the model answers request 2 with text "That fits."
    When the session runs
    Then a context pass asked to reduce came between model requests 1 and 2
    And model request 2 differs from model request 1
    And model request 2 carries attempt 1
    And the model was asked 2 times
    And the session ends with status "completed"

  @ER-06 @must
  Scenario: context overflow that nothing can shrink fails cleanly, naming the cause
    Given the context provider contributes the same text every turn and cannot shrink it
    And the model fails every request with "context_length_exceeded"
    When the session runs
    Then no model request repeated an earlier one
    And the model was asked fewer than 6 times
    And the session ends with the kernel's model-error status
    And the kernel named "context_length_exceeded" as the cause, in an event or in the session result

  @ER-06 @must
  Scenario: context overflow is reduced a bounded number of times, even when the context could always shrink
    The context provider finds something to cut on every pass, so every
    rebuilt request differs from the failed one. The kernel bounds the
    passes itself (A-27 names no number; nineteen passes is far above any
    cap a kernel would choose): one that reduces for as long as the
    provider shrinks never ends, and the fake model answers past its script
    only after 60 requests.
    Given the context provider contributes a long text every turn and a shorter one on every pass asked to reduce
    And the model fails every request with "context_length_exceeded"
    When the session runs
    Then the model was asked fewer than 20 times
    And the kernel made as many reduce passes as its errors.max_reductions says
    And the session ends with the kernel's model-error status

  @ER-07 @must
  Scenario Outline: <category> is not quietly routed to a fallback model
    The model config lists two fallback models. A request to any model but
    the primary counts as a switch, and a switch is silent unless an event
    naming the category, with a message for a human, came before it. How
    the kernel reports the error and ends the session is recorded, not
    judged: ER-07 forbids the silent switch only.
    Given the model config lists "fake-model-fallback" and "fake-model-backup" as fallback models
    And the model fails request 1 with "<category>"
    And the model answers request 2 with text "Answer from somewhere."
    When the session runs
    Then no model request went to another model than the primary before the frontend was told of "<category>"
    And how the kernel reported "<category>" and how the session ended are recorded

    Examples:
      | category        |
      | auth_error      |
      | invalid_request |

  @ER-08 @must
  Scenario: a content_filtered stop reason is surfaced as its own condition
    Given an observe subscriber "watch" at "post-model-response"
    And the model answers request 1 with text "I cannot continue with that." and stop reason "content_filtered"
    When the session runs
    Then the post-model-response observer saw "content_filtered" as the stop reason
    And an event reported "content_filtered"

  @ER-08 @must
  Scenario: a content_filtered model error is surfaced as its own condition
    Given an observe subscriber "watch" at "post-model-response"
    And the model fails request 1 with "content_filtered"
    When the session runs
    Then the post-model-response observer saw "content_filtered" as the error category
    And an event reported "content_filtered"

  @ER-08 @must
  Scenario: an unknown model error is not reported as a content filter
    The counterpart of the two scenarios above: the same observers tell
    the two outcomes apart.
    Given an observe subscriber "watch" at "post-model-response"
    And the model fails request 1 with "unknown"
    When the session runs
    Then the post-model-response observer saw "unknown" as the error category
    And the post-model-response observer never saw "content_filtered"
    And no event reported "content_filtered"

  @ER-09 @must
  Scenario Outline: the kernel itself names a crash of a <kind> call process_crashed, promptly
    The category is checked wherever the kernel exposes one: the
    tool_result's error_category, the post-tool-call payload, events
    carrying the call id and the session result's error. At least one of
    them must carry it. Whether the session goes on after the crash is
    ER-04's (a SHOULD): the crashed call is failed promptly either way, by
    the next model request or by the end of the session.
    Given a <kind> tool "probe" from provider "sensors" that the policy allows
    And an observe subscriber "watch" at "post-tool-call"
    And the tool "probe" crashes on every call
    And the model answers request 1 with call probe(target "boiler")
    And the model answers request 2 with text "The probe is down."
    When the session runs
    Then the error result for the call of request 1 is categorised "process_crashed" wherever the kernel names a category
    And the crashed call of request 1 was failed within 5000 ms: by the next model request or by the end of the session

    Examples:
      | kind        |
      | data_source |
      | resource    |

  @ER-10 @should
  Scenario: repeated crashes of one provider trip the circuit breaker before max_turns
    The model keeps calling the crashing tool with new arguments, so the
    doom-loop detector stays quiet. The breaker's status is the kernel's
    (A-06); the final-answer shape is asserted. Whether an allowed call
    resets the count in a row is open (A-33), so both tiers are set: a
    kernel trips on one or the other after three crashes.
    Given a data_source tool "probe" from provider "sensors" declared safe with no key fields
    And the tool "probe" crashes on every call
    And the model answers every request with a call to "probe" whose target changes each time
    And the circuit breaker is set to trip after 3 in a row or 3 among the last 6 decisions
    And the session allows at most 10 turns
    When the session runs
    Then the model was asked fewer than 11 times
    And the last model request offered no tools
    And the session ends with the kernel's circuit-breaker status

  @ER-11 @must
  Scenario: a retryable error of a resource that is not idempotent is invoked once and given to the model
    It goes to the model as an error: the tool's own error result keeps
    is_error and its error_category in the tool_result the model sees
    (PROTOCOL.md §7.4); without the flag the model reads a success.
    Given a resource tool "deploy" from provider "ops"
    And a policy rule "deploys-ok" that allows "deploy"
    And the tool "deploy" answers every call with a retryable "unknown" error
    And the model answers request 1 with call deploy(target "prod")
    And the model answers request 2 with text "The deployment failed."
    When the session runs
    Then the tool "deploy" was invoked 1 time
    And every tool/invoke of a call counts its attempts up from 1
    And model request 2 holds an error result for the call of request 1
    And the error result for the call of request 1 is categorised "unknown" wherever the kernel names a category

  @ER-11 @must
  Scenario: the invokes of an idempotent resource call count their attempts from 1
    A retry of an idempotent resource is allowed, not required: a kernel
    that gives the error to the model at once has one invoke, attempt 1.
    A kernel that retries numbers each invoke of the call: 1, 2, ...
    Given a resource tool "sync" from provider "ops"
    And the tool "sync" is declared idempotent
    And a policy rule "syncs-ok" that allows "sync"
    And the tool "sync" answers every call with a retryable "unknown" error
    And the model answers request 1 with call sync(target "cache")
    And the model answers request 2 with text "The sync failed."
    When the session runs
    Then every tool/invoke of a call counts its attempts up from 1
    And every call of "sync" was invoked as often as the kernel's errors.tool_retries says
    And model request 2 holds an error result for the call of request 1
    And the error result for the call of request 1 is categorised "unknown" wherever the kernel names a category

  @ER-11 @must
  Scenario: a retryable error of a data_source call is retried as often as the kernel declares
    A data_source call may be retried like an idempotent resource. How
    often is the kernel's (errors.tool_retries); undeclared, the scenario
    is skipped (nothing else in it is asserted).
    Given the kernel declares its reading of "errors.tool_retries"
    And a data_source tool "lookup" from provider "stats" that the policy allows
    And the tool "lookup" answers every call with a retryable "unknown" error
    And the model answers request 1 with call lookup(key "orders")
    And the model answers request 2 with text "The lookup failed."
    When the session runs
    Then every call of "lookup" was invoked as often as the kernel's errors.tool_retries says

  @ER-11 @must
  Scenario: a failed interactive call is never retried automatically
    Given an interactive tool "confirm" from provider "human"
    And the frontend fails every interactive request for "confirm"
    And the model answers request 1 with call confirm(prompt "Deploy to prod?")
    And the model answers request 2 with text "No answer from the user."
    When the session runs
    Then the frontend received 1 interactive request for "confirm"
    And model request 2 holds an error result for the call of request 1

  @ER-11 @must
  Scenario: a failed interactive call is never retried automatically, even when declared idempotent
    Given an interactive tool "confirm" from provider "human"
    And the tool "confirm" is declared idempotent
    And the frontend fails every interactive request for "confirm"
    And the model answers request 1 with call confirm(prompt "Deploy to prod?")
    And the model answers request 2 with text "No answer from the user."
    When the session runs
    Then the frontend received 1 interactive request for "confirm"
    And model request 2 holds an error result for the call of request 1

  @ER-12 @must
  Scenario Outline: an output of a <kind> call that breaks the tool's output_schema becomes an unknown-category error
    Given a <kind> tool "count" from provider "stats" that the policy allows
    And the tool "count" declares this output schema:
      """
      {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer"}}}
      """
    And the tool "count" returns this output:
      """
      {"total": "many"}
      """
    And the model answers request 1 with call count(table "orders")
    And the model answers request 2 with text "Counted."
    When the session runs
    Then model request 2 holds an error result for the call of request 1
    And the error result for the call of request 1 is categorised "unknown" wherever the kernel names a category

    Examples:
      | kind        |
      | data_source |
      | resource    |

  @ER-12 @must
  Scenario: every tool's output_schema is enforced, not only the first tool's
    Given a data_source tool "size" from provider "stats" that the policy allows
    And the tool "size" declares this output schema:
      """
      {"type": "object"}
      """
    And a data_source tool "count" from provider "stats" that the policy allows
    And the tool "count" declares this output schema:
      """
      {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer"}}}
      """
    And the tool "count" returns this output:
      """
      {"total": "many"}
      """
    And the model answers request 1 with call count(table "orders")
    And the model answers request 2 with text "Counted."
    When the session runs
    Then model request 2 holds an error result for the call of request 1
    And the error result for the call of request 1 is categorised "unknown" wherever the kernel names a category

  @ER-12 @must
  Scenario: a one-character output that matches the tool's output_schema is a success
    The shortest outputs are read as the JSON they are: a single digit is
    a number, never an absent output.
    Given a data_source tool "count" from provider "stats" that the policy allows
    And the tool "count" declares this output schema:
      """
      {"type": "integer"}
      """
    And the tool "count" returns this output:
      """
      7
      """
    And the model answers request 1 with call count(table "orders")
    And the model answers request 2 with text "Counted."
    When the session runs
    Then model request 2 holds the result of the call of request 1 as a success

  @ER-12 @must
  Scenario Outline: an output of a <kind> call that matches the tool's output_schema is a success
    The counterpart of the scenario above: the check rejects only what
    breaks the schema.
    Given a <kind> tool "count" from provider "stats" that the policy allows
    And the tool "count" declares this output schema:
      """
      {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer"}}}
      """
    And the tool "count" returns this output:
      """
      {"total": 42}
      """
    And the model answers request 1 with call count(table "orders")
    And the model answers request 2 with text "Counted."
    When the session runs
    Then model request 2 holds the result of the call of request 1 as a success

    Examples:
      | kind        |
      | data_source |
      | resource    |
