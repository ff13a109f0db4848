// Package cost prices usage events from the model's declared pricing.
//
// The kernel computes every dollar figure itself at receipt time (TA-06,
// TA-23): five non-overlapping counters times their per-million rates, with
// reasoning tokens billed at the output rate and absent counters or rates
// counting as zero (TA-24, A-14). Exactly one tier applies to an event,
// chosen by the receipt time and the event's input_tokens, both windows
// half-open (TA-25, A-12); a price list under which some point matches no
// tier or several is refused before the session starts.
//
// Weighted tokens (TA-05) refine the cost dimension: Weighted gives an
// event's weighted tokens, reported with its cost, and the bounds package
// compares their sum with bounds.weights.max_weighted_tokens as part of
// max_cost_usd. Reporter is the seam that sends each priced event.
package cost
