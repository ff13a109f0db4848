// Package bounds decides, at step 17 of a turn, whether one of the three
// independent loop bounds has fired: max_turns (TA-02), max_cost_usd (TA-03)
// and max_wall_clock_s (TA-04). Each is checked on its own and any of them
// sends the session down the one limit-reached path (TA-19); the result
// names the bound and the status the session will end with (TA-21).
//
// Readings of the reference kernel:
//   - only ordinary turns count and the bound fires when turns >= max_turns
//
//   - the cost bound fires when the remaining budget is <= 0, that is when
//     the running sum reaches the cap;
//   - wall-clock time runs from session start and is read only at step 17
//     so a turn may overrun it;
//   - the weighted-token refinement (TA-05, bounds.weights) belongs to the
//     cost dimension: it fires as max_cost_usd with error_max_budget_usd;
//   - soft limits (TA-09, bounds.soft) apply to max_turns and max_cost_usd
//     only. A soft bound pauses the session; when the user continues, the
//     bound grants a fresh allowance of its configured size counted from
//     that moment (Allowance). Hard termination stays the default (TA-22).
package bounds
