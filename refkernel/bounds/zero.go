package bounds

// ZeroBound is the reference kernel's reading bound.zero (PROTOCOL.md §15):
// what it does with a max_turns (of the bounds, or of a sub-agent profile:
// subagent.Validate), max_wall_clock_s or weights.max_weighted_tokens of 0,
// which the schema admits and the specification gives no meaning. The
// reference refuses such a config at load (Validate); it cannot mean "unbounded", since an unset bound is
// left out of the config, not sent as 0. max_cost_usd is not part of the
// reading: the specification's "the bound has fired once the remaining
// budget is <= 0" gives a cap of $0 its meaning (it fires at the first
// step 17), so Validate accepts it.
const ZeroBound = "refused"
