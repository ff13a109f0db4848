// Command kitloop is an agent loop built on kernelkit the way an outside Go
// kernel would build one: a loop of its own (turn, cost and wall-clock
// bounds with one final-answer turn, hook aborts ending the session) on
// every helper the kit exports — Main with CheckOutgoing, Session (Start,
// Finish, NewTurn, Begin, Charge, Spent, Event, Tool, ToolSpecs), Turn
// (Assemble, Model, RunTools, Invoke, Interactive), Dispatch, Fold,
// ToolResultOf, OutputText and ResultBlock — and the kit's answers for the
// optional parts it leaves out (cancel, continue, spawn, decide, memory).
//
// It exists to judge kernelkit (issue 29): the reference kernel runs only
// the kit's wire layer, so the kit's helpers are judged through this loop
// (internal/mutation's kit pass, make mutation-kernelkit). It does not pass
// the whole suite (no retries, no doom-loop detector, no policy, no
// sub-agents); the campaign judges a mutant of the kit only by the
// scenarios the unmutated loop passes, so what it lacks is never a kill.
//
//	conform run --kernel "go run ./examples/kitloop"
//
// It serves no requirement ID itself.
package main
