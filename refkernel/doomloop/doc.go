// Package doomloop is the kernel-owned detector of a model repeating the
// same call (TA-12, TA-26).
//
// A call's hash covers the tool name and the canonical JSON of its input
// (keys sorted, no whitespace, numbers as written), not the provider.
// The loop feeds one session-wide sequence of data_source and resource
// calls, in message order, across turns, whatever their outcome (A-01,
// A-02); interactive calls are invisible. At step 16 the detector
// fires when the last threshold hashes are equal. window_size only bounds
// the history kept.
//
// The second tier (TA-13, ModelCheck) is on when model_check_window > 0:
// every model_check_window relevant calls, at step 16, the kernel sends a
// model/stream of purpose loop_check with the window's calls and no tools,
// prices its usage like any other, and treats a confident yes (looping
// true, confidence >= 0.8) as a fired doom loop. The reading of the answer
// follows PROTOCOL.md §7.3.
//
// Readings declared by the kernel: "doom_loop.default_threshold" = "3",
// "doom_loop.status" = "error_max_turns" (A-06: there is no status of its
// own, failed would break TA-08, and completed would look like success) and
// "doom_loop.model_check_counts" = "relevant_calls" (the second tier's
// window counts the hash tier's calls; a check restarts the count).
package doomloop
