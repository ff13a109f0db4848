// Command conform checks an agent-loop kernel against the agent-loop
// specification and serves the reference kernel.
//
// Commands: run (the suite, with reports), fuzz (generated sessions and
// their invariants), list and explain (the catalog and its coverage),
// kernel (the reference kernel on stdio), version (tool, protocol and
// catalog versions), trace check (a recorded OTLP JSON trace judged
// offline), hook-relay (hidden: run by a coding agent's hooks, the bridge). Every usage error (exit 2) is found before a kernel
// starts: flags, tag expression, feature files and report paths.
package main
