package model

import (
	"context"
	"testing"

	"github.com/agentconform/conform/internal/testrace"
)

// The reference model provider fails and errs nothing, and reaches the
// compliance level "all".
func TestReference(t *testing.T) {
	testrace.SkipUnderRace(t)
	rep, stats, err := Run(context.Background(), options(t, "reference"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range rep.Requirements {
		switch q.Status {
		case "fail", "error", "not_tested", "skipped":
			t.Errorf("%s %s: %s", q.ID, q.Status, q.Reason)
		}
	}
	if rep.Compliance.Level != "all" {
		t.Errorf("compliance %q: %s", rep.Compliance.Level, rep.Compliance.Label)
	}
	if stats.Launches != 1 {
		t.Errorf("%d launches: the reference never needs a relaunch", stats.Launches)
	}
	t.Logf("%s; %d generated calls", rep.Compliance.Label, stats.GeneratedCalls)
}
