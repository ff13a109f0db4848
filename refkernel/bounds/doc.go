// Package bounds decides, at step 17 of a turn, whether one of the three
// independent loop bounds has fired: max_turns (TA-02), max_cost_usd (TA-03)
// and max_wall_clock_s (TA-04). Each is checked on its own and any of them
// sends the session down the one limit-reached path (TA-19); the result
// names the bound and the status the session will end with (TA-21).
//
// Readings: only ordinary turns count and the bound fires when turns >=
// max_turns; the cost bound fires when the running sum reaches the
// cap; wall-clock time runs from session start and is read only here
// . Soft limits (TA-09) and weighted tokens (TA-05) are not offered.
package bounds
