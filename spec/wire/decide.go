package wire

// Several frontend connections on one session (PA-16). The kernel's own
// frontend/permission requests go to the primary connection; any other
// connection the harness simulates submits its decisions with
// frontend/decide, and only the first decision for an item counts.

// MethodFrontendDecide (harness → kernel): another frontend connection of a
// session submits decisions for the session's pending plan items.
const MethodFrontendDecide = "frontend/decide"

// ConnectionPrimary names the frontend connection that receives the
// kernel's frontend/permission requests, in frontend_error events.
const ConnectionPrimary = "primary"

// FrontendErrInvalidClientEvent is the category of a decision the kernel
// rejects because its item is no longer (or never was) pending: a decision
// arrived for it first, or no such item awaits a decision.
const FrontendErrInvalidClientEvent = "INVALID_CLIENT_EVENT"

// EventFrontendError is the event kind that records a frontend decision the
// kernel rejected, whichever connection sent it.
const EventFrontendError = "frontend_error"

// FrontendDecideParams are one connection's decisions for pending items of
// a session.
type FrontendDecideParams struct {
	SessionID string `json:"session_id"`
	// Connection names the sending connection; it is never "primary".
	Connection string         `json:"connection"`
	Decisions  []PlanDecision `json:"decisions"`
	// InteractiveResponses answer interactive calls the kernel is waiting
	// on (its frontend/interactive still unanswered), one per call.
	InteractiveResponses []InteractiveResponse `json:"interactive_responses,omitempty"`
}

// InteractiveResponse is one connection's answer to a pending interactive
// call; the first answer becomes the call's result.
type InteractiveResponse struct {
	CallID   string `json:"call_id"`
	Response string `json:"response"`
}

// FrontendDecideResult answers every decision of a frontend/decide, in the
// order sent.
type FrontendDecideResult struct {
	Results []DecisionOutcome `json:"results"`
	// InteractiveResults answer every interactive response, in the order
	// sent; absent when none was sent.
	InteractiveResults []InteractiveOutcome `json:"interactive_results,omitempty"`
}

// InteractiveOutcome is what became of one submitted interactive response:
// accepted (it answered its call), or rejected with INVALID_CLIENT_EVENT
// for a call already answered or not waiting for an answer.
type InteractiveOutcome struct {
	CallID   string `json:"call_id"`
	Accepted bool   `json:"accepted"`
	Category string `json:"category,omitempty"`
	Message  string `json:"message,omitempty"`
}

// DecisionOutcome is what became of one submitted decision: accepted (it
// decided its item), or rejected with a category, INVALID_CLIENT_EVENT for
// an item that was already decided or is not pending.
type DecisionOutcome struct {
	PlanItemID string `json:"plan_item_id"`
	Accepted   bool   `json:"accepted"`
	Category   string `json:"category,omitempty"`
	Message    string `json:"message,omitempty"`
}
