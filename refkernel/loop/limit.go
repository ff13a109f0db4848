package loop

import (
	"fmt"

	"github.com/agentconform/conform/refkernel/bounds"
)

// FinalTurn shapes the one turn run after a bound fired.
type FinalTurn struct {
	// WithholdTools sends tools: [] instead of the session's tool specs.
	WithholdTools bool
	// Instruction, when set, is appended to the request as a user message.
	Instruction string
	// Unlabelled sends the request with purpose "turn", as a loop does that
	// has no final-answer turn of its own (for test kernels only).
	Unlabelled bool
}

// LimitPolicy is the swappable limit-reached part.
type LimitPolicy interface {
	// FinalTurn returns the final-answer turn to run, or false to end the
	// session at once.
	FinalTurn(f bounds.Fired) (FinalTurn, bool)
}

// StandardLimit runs one tool-less turn with an instruction naming the
// bound (TA-20).
type StandardLimit struct{}

// FinalTurn implements LimitPolicy.
func (StandardLimit) FinalTurn(f bounds.Fired) (FinalTurn, bool) {
	return FinalTurn{WithholdTools: true, Instruction: Instruction(f)}, true
}

// Instruction is the kernel-authored message of the final-answer turn.
func Instruction(f bounds.Fired) string {
	return fmt.Sprintf("[kernel] This session has reached a limit (%s) and will end after this reply. "+
		"No tools are available any more. Using only what you have gathered so far, give your final answer now.", f.Bound)
}
