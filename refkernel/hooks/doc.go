// Package hooks dispatches the eight generic hook points to the subscribers
// a session declares.
//
// One pass per dispatch, in declaration order with every mode mixed (HD-01).
// Each subscriber call gets its own deadline: its timeout_ms, else
// hooks.default_timeout_ms, none when both are zero (HD-05, A-24). The
// kernel enforces the deadline itself, even against a Host that ignores its
// context.
//
//   - observe: the answer is ignored; a failure, timeout or wrong outcome
//     leaves a hook_error event with mode observe and the chain goes
//     on with the payload unchanged (HD-02, HD-10). A maximal run of
//     adjacent observers is called concurrently and awaited as a whole
//     before the next subscriber, so observers never run ahead of their
//     neighbours (HD-07, HD-15).
//   - transform: the answer must be a transform with a payload of the same
//     variant that differs, if at all, only in messages at pre-model-call
//     (HD-09, HD-10). Any failure aborts the chain with a hook_error
//     (TRANSFORM_FAILED, TIMEOUT, INVALID_RESPONSE, PROCESS_CRASHED) and an
//     AbortError, so the turn never goes on with the untransformed payload
//     (HD-03). Reading of A-23: the session then ends failed.
//   - veto: ALLOW lets the chain go on; DENY, UNSPECIFIED, a wrong outcome,
//     an error or a timeout all deny (fail closed, HD-04, HD-10), and a deny
//     skips every later subscriber (HD-11). Third-party vetoes are accepted
//     as declared (HD-08).
//
// In every mode, an answer that breaks the hook/dispatch result schema is
// the subscriber's INVALID_RESPONSE (PROTOCOL.md §7.2), not a transport
// failure.
//
// Transform and veto subscribers are strictly sequential (HD-06). Every
// dispatch gets a hook_dispatch span with one hook_subscriber child per
// subscriber called (HD-13); hook_error events name the subscriber as their
// producer (HD-14). Declarations are checked when the session is created
// (HD-16): unknown point or mode, one id subscribed twice at the same point
// (one plugin may subscribe at several points), a subscription at
// context-assemble (served by context/assemble instead, HD-17), or a point
// the subscriber does not list in its supported points.
//
// Invoke, CheckTransform and ReportFailure are the building blocks of
// Standard, exported so that a wrapping dispatcher (the mutants of the
// conformance suite) can reuse them.
package hooks
