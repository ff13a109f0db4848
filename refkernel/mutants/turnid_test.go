package mutants

import (
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/refkernel/loop"
)

// A loop with no context step marks its turns by turn_id alone (PROTOCOL.md
// §12): the suite must fail it on TA-01 (and HD-17, whose subject is the
// context step) and on nothing that merely counts turns. Found on two real
// Go frameworks, whose TA-06 costs were summed over "turn 0" and whose
// PA-14 was left not tested.
func TestNoContextStepFailsOnlyItsOwn(t *testing.T) {
	testrace.SkipUnderRace(t)
	parts := loop.DefaultParts()
	parts.Steps = loop.Without(loop.DefaultSteps(), loop.StepContextAssemble)
	r := run(t, "no-context-step", parts, "@TA-06,@PA-14,@PA-01,@TA-01")
	want := map[string]report.Status{"TA-01": report.Fail, "TA-06": report.Pass, "PA-14": report.Pass, "PA-01": report.Pass}
	for _, q := range r.Requirements {
		if w, ok := want[q.ID]; ok && q.Status != w {
			t.Errorf("%s is %s (%s), want %s", q.ID, q.Status, q.Reason, w)
		}
	}
}
