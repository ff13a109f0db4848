// Command conform checks an agent-loop kernel against the agent-loop
// specification and serves the reference kernel.
//
// Commands: run (the suite, with reports), fuzz (generated sessions and
// their invariants), list and explain (the catalog and its coverage),
// kernel (the reference kernel on stdio).
package main
