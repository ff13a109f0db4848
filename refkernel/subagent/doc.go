// Package subagent is the kernel's live session tree: every running session,
// root or child, is a Node that knows its parent, its depth budget, its cost
// budget and what it and its descendants have spent, and through its context
// it takes its descendants down with it when it is cancelled.
//
// A spawn (session/spawn, the RunSession callback of a spawn-capable tool)
// goes through Tree.Spawn, which
//   - accepts only a caller whose session is the named parent: the call_id
//     must be a spawn-capable tool/invoke of that very session that is in
//     flight (SA-10, A-30);
//   - computes the child's depth budget, min(parent − 1, profile max_depth),
//     and its cost budget, min(parent's remainder, profile cap); a caller's
//     hints may only make them smaller (§3.2, §3.7, SA-06, SA-10, TA-07);
//   - gives the child the tools its own profile lists, narrowed by the
//     caller's scoped_providers and without any spawn-capable tool once the
//     depth budget is used up (SA-06, SA-07, SA-15);
//   - starts it from its prompt alone unless the profile forks the parent's
//     history (SA-01, SA-02);
//   - waits for one of the parent's max_concurrent slots, so spawns beyond
//     the cap queue (SA-03).
//
// Every usage cost is debited, under one lock, from the spender and each of
// its ancestors (TA-07), so a session's bound at step 17 sees its whole
// subtree's spending and a RunSessionResult carries the subtree's totals
// (SA-11). A session that ends first waits for its live children, so none
// outlives its parent (SA-04, SA-08). All of this is in memory; the
// session_meta rows the loop reports (parent, profile, depth, budgets) are
// for the harness's after-the-fact view only (SA-05, SA-13, SA-16).
//
// The Policy is a loop Part: each of its methods is one decision a mutant
// can get wrong.
//
// Readings of the reference kernel (declared in Info):
//   - depth.meaning = tree: session_meta.depth is the depth in the tree, the
//     root 0; remaining_depth carries the budget;
//   - max_depth.default = 1 and subagents.max_concurrent.default = 4, used
//     when the config has no subagents block; a max_concurrent of 0 also
//     means the default;
//   - an ancestor whose budget a descendant used up fires at its own next
//     step 17, after the join; running siblings keep the budget they were
//     given at spawn;
//   - a spawn naming a parent other than the caller's session is refused
//     with invalid params, an unknown parent with unknown session;
//   - a queued spawn whose parent is cancelled before it started is answered
//     with CodeCancelled: no session was created for it;
//   - a forked child starts with the parent's history as of the parent's
//     current turn's start (the turn's own, unanswered tool_use is not part
//     of it), then its prompt;
//   - a child inherits the parent's model, hooks, policy, retry, context and
//     telemetry settings; its max_turns is its profile's, else the root's.
package subagent
