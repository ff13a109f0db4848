// Package dfirst is the reference kernel's deterministic-first profile
// (capability profile.deterministic_first, DF-01…DF-10, PROTOCOL.md §17):
// session memory, tool gates with requires conditions and confirmations,
// ordered blocks of steps, and eligible skills.
//
// The loop calls the profile at four seams (refkernel/loop/dfirst.go): the
// framework pass before every model request, the tool list and the skills of
// each request, the dispatch of every tool call (through Gated, a Host
// wrapper), and the end of the run. The profile is the swappable part
// loop.Parts.DFirst; a mutant wraps the Session it opens, or replaces the
// condition Evaluator.
//
// What each requirement rests on:
//
//   - DF-01, DF-10: Session.Pass runs every determined step, sweeping the
//     blocks until none advances, and the loop calls it before the first
//     model request and again after every turn's tool calls.
//   - DF-02, DF-04: Session.Offered keeps only the tools whose gate holds
//     now; conditions fail closed (FailClosed).
//   - DF-03, DF-05: Session.Admit is the one dispatch gate, for calls of the
//     model (through Gated.Invoke) and of execute_tool steps (through
//     Gated.Dispatch): a closed gate refuses the call (a step waits), and a
//     confirmation is asked with frontend/confirm before anything runs.
//   - DF-06: Session.Routing offers only eligible skills, and Session.Replied
//     refuses a switch to any other skill.
//   - DF-07…DF-09: memory writes are applied at once and never undone; a
//     call records only when its tool answered, so a call cancelled in flight
//     leaves no record and its step keeps its place for the next run.
//
// Readings of this implementation (the points PROTOCOL.md §17 leaves to the
// kernel):
//
//   - df.reopen_history = fresh: a re-opened session starts
//     its history with the new message; memory, block positions and the
//     active skill carry over.
//   - Calls made by execute_tool steps pass the dispatch gate but no policy
//     rule and no tool hook: the block, not the model, decided them, and
//     they run outside any turn.
//   - A step whose call the user declined is done: it does not ask again.
package dfirst
