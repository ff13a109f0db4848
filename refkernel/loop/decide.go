package loop

import "github.com/agentconform/conform/spec/wire"

// Decide takes another frontend connection's decisions for the session's
// plan items (frontend/decide, PA-16): the first decision for a pending
// item decides it, a later one is rejected (plangate/decide.go).
func (s *Session) Decide(connection string, ds []wire.PlanDecision) []wire.DecisionOutcome {
	return s.gate.Submit(s.id, connection, ds)
}

// AnswerInteractive takes another frontend connection's answers to the
// session's waiting interactive calls (frontend/decide, PA-16): the first
// answer to a call is its result, a later one is rejected
// (plangate/interactive.go).
func (s *Session) AnswerInteractive(connection string, rs []wire.InteractiveResponse) []wire.InteractiveOutcome {
	return s.gate.SubmitInteractive(s.id, connection, rs)
}
