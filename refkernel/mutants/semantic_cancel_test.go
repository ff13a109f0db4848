package mutants

import (
	"strings"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/server"
	"github.com/agentconform/conform/spec/wire"
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

// One side of PA-16's batch (issue 29): when none of a frontend/decide's
// decisions or answers is pending, the kernel answers only the first of
// each, the way a loop that returns at the first unknown item does; a
// batch about pending items is answered in full.
func init() {
	register(Mutant{Name: "semantic/decide-unknown-batch-first-only", Targets: []string{"PA-16"},
		Breaks: "a frontend/decide none of whose decisions or answers is pending gets an outcome for its first decision and its first answer only",
		Apply:  func(p loop.Parts) loop.Parts { return p },
		Kit:    func(k server.Kernel) kernelkit.Kernel { return firstUnknownOnly{k} }})
}

type firstUnknownOnly struct{ server.Kernel }

func (k firstUnknownOnly) Decide(p wire.FrontendDecideParams) (wire.FrontendDecideResult, error) {
	res, err := k.Kernel.Decide(p)
	if err != nil {
		return res, err
	}
	for _, o := range res.Results {
		if o.Accepted {
			return res, nil
		}
	}
	for _, o := range res.InteractiveResults {
		if o.Accepted {
			return res, nil
		}
	}
	res.Results, res.InteractiveResults = res.Results[:min(1, len(res.Results))], res.InteractiveResults[:min(1, len(res.InteractiveResults))]
	return res, nil
}
