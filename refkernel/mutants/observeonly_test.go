package mutants

import (
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/loop"
)

// A kernel whose hooks can only observe (langchaingo's callbacks) dispatches
// every transform and never applies its answer. Declaring
// hooks.transforms = observe_only, it must fail the row that needs the
// change applied (HD-01: the payload flow ends at the model) and nothing
// that the chain's own answers show holding: the observer failures (HD-02,
// HD-10), transforms one after another (HD-06) and the timeouts (HD-05)
// used to fail with it, read from a model request that can never show
// them, and so did context-assemble (HD-17), through a check of the
// transformed messages that was never HD-17's. Undeclared, the reading is
// the specification's: the same kernel fails those rows as before.
func TestObserveOnlyHooksFailOnlyTheirOwn(t *testing.T) {
	testrace.SkipUnderRace(t)
	const tags = "@HD-01,@HD-02,@HD-05,@HD-06,@HD-10,@HD-17"
	declared := run(t, "observe-only-declared", ignoringParts(), tags,
		declare("hooks.transforms", "observe_only"))
	want := map[string]report.Status{
		"HD-01": report.Fail, "HD-17": report.Pass,
		"HD-02": report.Pass, "HD-05": report.Pass, "HD-06": report.Pass, "HD-10": report.Pass,
	}
	for _, q := range declared.Requirements {
		if w, ok := want[q.ID]; ok {
			if q.Status != w {
				t.Errorf("declared observe_only: %s is %s (%s), want %s", q.ID, q.Status, q.Reason, w)
			}
			delete(want, q.ID)
		}
	}
	for id := range want {
		t.Errorf("declared observe_only: %s is not in the report", id)
	}
	undeclared := run(t, "observe-only-undeclared", ignoringParts(), "@HD-02,@HD-06")
	for _, q := range undeclared.Requirements {
		if (q.ID == "HD-02" || q.ID == "HD-06") && q.Status != report.Fail {
			t.Errorf("undeclared: %s is %s (%s), want fail: the reading defaults to applied", q.ID, q.Status, q.Reason)
		}
	}
}

// ignoringParts is the reference kernel with the pre-model-call chain's
// answer never applied.
func ignoringParts() loop.Parts {
	p := loop.DefaultParts()
	p.Hooks = ignoreOutput{hooks.Standard{}}
	return p
}
