// Package retry is the kernel's error recovery: what happens after a model
// error (ER-01, ER-02, ER-03, ER-05, ER-06, ER-07, ER-08) and after a failed
// tool call (ER-04, ER-09, ER-10, ER-11, ER-12).
//
// The loop asks two swappable parts: Policy after every model error, and
// ToolPolicy around every tool invoke. Backoff and StandardTools are the
// reference parts; the readings they stand for are documented next to the
// code and declared in the kernel's initialize answer from the same
// constants the code uses (JitterMinRatio, DefaultSessionMaxRetries,
// MaxReductions as errors.max_reductions, MaxToolRetries as
// errors.tool_retries), so that changing one changes both; equal jitter
// never waits above nominal, declared as retry.jitter_max_ratio 1.
package retry
