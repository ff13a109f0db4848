package mutants

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/server"
	"github.com/agentconform/conform/spec/wire"
)

// One side of a condition (issue 29, TA-11.terminal-tool, unflagged side):
// once a session offers a tool marked terminates_turn, only a call to it
// ends the loop, the way a loop built around a "finish" tool does; a
// reply without tool calls is taken for a pause and the model is asked
// again. A flagged call still ends the loop.
func init() {
	register(Mutant{Name: "semantic/terminal-tool-replaces-done", Targets: []string{"TA-11"},
		Breaks: "in a session that offers a terminates_turn tool, a reply without tool calls no longer ends the loop",
		Kit:    func(k server.Kernel) kernelkit.Kernel { return terminalAware{k} },
		Apply: func(p loop.Parts) loop.Parts {
			return overStep(p, loop.StepDoneCheck, func(t *loop.Turn, run func(*loop.Turn) error) error {
				err := run(t)
				root, _, _ := strings.Cut(t.Session.ID(), "/")
				if _, ok := terminalRuns.Load(root); ok && err == nil && t.Final == nil && t.Done {
					t.Done, t.End = false, false
				}
				return err
			})
		}})
}

// terminalRuns are the root sessions whose config offers a terminal tool
// (session ids are unique within a test process).
var terminalRuns sync.Map

type terminalAware struct{ server.Kernel }

func (k terminalAware) Run(ctx context.Context, h *kernelkit.Host, p wire.RunParams) (wire.RunSessionResult, error) {
	if slices.ContainsFunc(p.Config.Tools, func(s wire.ToolSchema) bool { return s.TerminatesTurn }) {
		terminalRuns.Store(p.SessionID, true)
	}
	return k.Kernel.Run(ctx, h, p)
}
