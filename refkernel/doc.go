// Package refkernel is the reference kernel of conform: a Go library that
// implements the agent loop the conformance suite checks, built from
// swappable Parts so that tests can replace one part with a deliberately
// broken one and prove the scenarios catch it.
//
// The kernel hosts only the loop. Everything around it (model, tools, hook
// subscribers, context provider, frontend) is reached through a Host, which
// the wire server (package server) implements over conform.wire/v1 and
// in-process tests implement directly.
//
// Requirements served here: the session lifecycle and cancellation (TA-18,
// DF-07), the initialize answer with capabilities and readings (PROTOCOL.md
// lifecycle), and refusing a bad config before the session starts (HD-16,
// TA-25, ER-05). The loop itself is in package loop; see the doc of each
// part's package for the requirements it serves.
//
// Sub-agents: Spawn serves the RunSession callback (session/spawn) of a
// spawn-capable tool and Cancel reaches children too. Every live session,
// root or child, is a node of the kernel's in-memory tree (package
// subagent), which threads depth and cost budgets, caps concurrent children
// per parent, rolls costs up to every ancestor and cascades cancellation
// (SA-01 to SA-16, TA-07).
package refkernel
