package mutants

import (
	"strings"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/server"
)

// One cancel handle per run (issue 29, SA-08.middle): session/cancel of a
// child session cancels the whole run it belongs to, the way a loop that
// keeps the cancel function of the top-level run only does. Cancelling the
// root, the one case scenarios used to try, is unchanged.
func init() {
	register(Mutant{Name: "semantic/cancel-middle-cancels-run", Targets: []string{"SA-08"},
		Breaks: "session/cancel of a child session cancels the whole run it belongs to, root and siblings included",
		Apply:  func(p loop.Parts) loop.Parts { return p },
		Kit:    func(k server.Kernel) kernelkit.Kernel { return cancelsWholeRun{k} }})
}

type cancelsWholeRun struct{ server.Kernel }

func (k cancelsWholeRun) Cancel(id string) error {
	if i := strings.Index(id, "/"); i > 0 {
		id = id[:i] // the run's root: the reference names a child parent/cN
	}
	return k.Kernel.Cancel(id)
}
