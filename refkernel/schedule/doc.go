// Package schedule runs one group of tool calls (the reads of step 9, the
// applies of step 12) under their concurrency keys (TA-14, TA-15, TA-16,
// TA-29, TA-30).
//
// A safe operation's key is (provider, tool, values of key_fields); with no
// key_fields every call gets a key of its own. An unsafe or undeclared
// operation takes a provider-wide lock: while it runs nothing else may run
// against that provider, and it waits for everything before it on that
// provider. Calls whose keys conflict run one after another in
// message order; all others run at once. A model without parallel tool
// calls gets everything serialized. Interactive calls (step 9b) go through
// the same scheduler with one key they all share, exclusive whatever they
// declare, so they run strictly one at a time in message order (PA-07,
// TA-28). Keys come from a swappable Keyer.
package schedule
