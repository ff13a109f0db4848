// Package loop is the session loop and the RunTurn algorithm (TA-01).
//
// A session fires session-start once, runs turns until one is done or a
// bound fires, and fires session-end exactly once whatever ended it (TA-18).
// A turn is an ordered list of named steps, DefaultSteps, one per step of
// the algorithm (3 and 4 together); the list is a Part, so a test can build
// a kernel whose steps run in a wrong order and check that the conformance
// scenarios notice.
//
// Done detection (TA-10, TA-11, TA-27): a reply without tool_use ends the
// session completed at step 6; an executed resource marked terminates_turn
// ends it after that call's post-tool-call hook, with the turn's remaining
// post-tool-call hooks and post-apply still fired and no new turn.
//
// Limit-reached (TA-08, TA-19, TA-20, TA-21, TA-26): when the doom-loop
// check (step 16) or a bound (step 17) fires, the kernel reports a
// limit_reached event and runs exactly one more turn whose model request
// offers tools: [] and ends with a kernel-authored instruction; nothing that
// reply asks for is executed, and the session ends with the bound's
// status. max_turns counts ordinary turns only.
//
// Every model and tool request carries call_context (TA-31). Usage is
// priced as it arrives and reported with cost/usage before anything else
// happens (TA-06, TA-23). A tool whose provider crashed becomes an error
// result with category process_crashed and the session goes on (ER-04,
// ER-09). A model error ends the session failed with a model_error event;
// retries are a Part whose default never retries. A failed transform hook
// ends it failed too. Cancellation ends it cancelled.
package loop
