package loop

import "github.com/agentconform/conform/spec/wire"

// DoneDetector is the swappable done-detection part.
type DoneDetector interface {
	// Finished is step 6: does this reply end the session?
	Finished(reply wire.Message) bool
	// Terminates is checked after each call's post-tool-call hook: does
	// this call end the session?
	Terminates(tool wire.ToolSchema, executed bool) bool
}

// StandardDone is implicit done detection plus opt-in terminal tools.
type StandardDone struct{}

// Finished implements DoneDetector: no tool_use block means done.
func (StandardDone) Finished(reply wire.Message) bool {
	for _, b := range reply.Content {
		if b.Type == wire.BlockToolUse {
			return false
		}
	}
	return true
}

// Terminates implements DoneDetector: only an executed resource marked
// terminates_turn counts; a denied one does not.
func (StandardDone) Terminates(tool wire.ToolSchema, executed bool) bool {
	return executed && tool.TerminatesTurn && tool.Kind == wire.KindResource
}
