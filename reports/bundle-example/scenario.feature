# Repro bundle of error_recovery.feature:49 (fail), written by conform 0.1.0.
# Re-run it with: conform replay <this folder> --kernel "CMD"
# The feature's description:
#   The fake model answers with classified model errors (category, message,
#   retryable, retry-after) and the fake tools crash, fail or break their
#   output schema. A kernel backs off and retries only transient model errors
#   (rate_limited, overloaded), caps retries per call and per session, never
#   resends a request that failed for a reason a resend cannot fix, shrinks
#   the context or fails cleanly on overflow, reports a content filter as a
#   condition of its own, and turns a failed tool call into that call's error
#   result while the session goes on.
#
#   Retry timing is read from the recorded arrival times: the wait before a
#   retry runs from the harness's error answer to the retry's arrival, so it
#   is never shorter than the kernel's own. The form of the jitter is open
#   (A-26); the checks follow the kernel's readings (PROTOCOL.md §15):
#   retry.jitter_min_ratio (a floor on every wait, none when undeclared),
#   retry.jitter_max_ratio (2 when undeclared) and retry.added_delay_ms (0).
#   Silence is no free pass: taken together, the waits must be at least as
#   long as full jitter's, the widest form (a wait anywhere from 0 to its
#   nominal delay base·factor^(k−1)); a conforming kernel fails that with a
#   chance of one in a million per check. Few retries decide little, so two
#   scenarios make many: they pin the base delay and the growth down. A
#   retry-after is a floor with no jitter excuse. A retry that has not come
#   by its ceiling (its upper bound plus a margin of its own size or a
#   second) fails there, with the figure: the harness ends the session
#   instead of waiting for the scenario timeout. max_retries counts retries
#   after the first attempt ("Retries per call" in the protocol), so a call
#   is attempted at most max_retries + 1 times.
#
#   Only partly observable, and not asserted: that the waits are jittered
#   (arrival times cannot tell jitter from the machine's scheduling noise),
#   raw retry-after headers (the protocol carries retry_after_ms only), the
#   default of 5 retries (its schedule alone takes at least 7.75 s), and
#   automatic retries of idempotent resources and data sources (allowed, not
#   required).
Feature: Error recovery

  @ER-01 @must
  Scenario: rate_limited is retried with growing waits until it succeeds
    * retry settings of base 40 ms, factor 2 and 3 retries per call
    * the model fails requests 1 to 3 with "rate_limited"
    * the model answers request 4 with text "Recovered."
    * the session runs
    * the model was asked 4 times
    * model requests 1 to 4 are the same request with attempts counting up
    * the waits before model requests 2 to 4 follow a backoff from 40 ms growing by a factor of 2
    * the session ends with status "completed"
