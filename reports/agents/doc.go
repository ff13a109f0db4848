// Package agents holds the judgements of the coding-agent reports
// (reports/agents/NAME.json, written by `conform agent NAME`) to those
// reports, and renders every figure about them from the JSON.
//
// A judgement (NAME.judgements.json, schema judgements.schema.json) classes
// every failing or erroring requirement of a report: a true finding about
// the agent (for an open-source agent, the file and line of its pinned
// source; for a closed one, the recorded behaviour and its documentation), a
// limitation of the profile or the bridge (glue: the report must carry the
// glue label, which the profile declares, so it is never counted against the
// agent), or a false failure of the suite (fixed, with a regression test).
// It also samples passes: did the agent do it, did the profile or the
// bridge, or did a check see nothing?
//
// Check holds a judgement to its report and profile; Markdown renders the
// readable judgement (NAME.judgements.md) and Table the README's agents ×
// areas table, both from the JSON. The test fails when a committed text is
// stale; `go test ./reports/agents -update` rewrites them. It serves the
// glue label of PROTOCOL.md §15 and the honesty of published reports
// (issue 28).
package agents
