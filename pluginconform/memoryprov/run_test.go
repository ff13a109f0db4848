package memoryprov

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/refplugin"
	"github.com/agentconform/conform/refplugin/refmemory"
	"github.com/agentconform/conform/spec"
)

// TestMain lets the test binary be the plugin under test.
func TestMain(m *testing.M) {
	refplugin.MaybeChild()
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		switch os.Args[2] {
		case "reference":
			refmemory.Serve(refmemory.Faults{})
		case "ratify":
			refmemory.Serve(refmemory.Faults{Ratify: true})
		case "tool":
			refplugin.Serve(refplugin.Faults{})
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func options(name string) Options {
	return Options{Argv: []string{os.Args[0], "serve", name}, Env: launch.BaseEnv(nil), Cases: 15, Seed: 7, StartTimeout: 30 * time.Second}
}

// TestReference: the reference and the ratifying variant fail nothing;
// between them every row the wire can judge passes; the report validates.
func TestReference(t *testing.T) {
	testrace.SkipUnderRace(t)
	unverifiable := map[string]bool{"MM-30": true, "MM-42": true, "MM-43": true}
	other := map[string]map[string]report.Status{
		"reference": {"MM-22": report.NotTested, "MM-23": report.NotTested, "MM-33": report.NotTested, "MM-34": report.NotTested, "MM-47": report.NotTested},
		"ratify":    {"MM-35": report.NotTested},
	}
	for name, o := range other {
		rep, stats, err := Run(context.Background(), options(name))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range rep.Requirements {
			want, ok := o[q.ID]
			switch {
			case ok:
			case unverifiable[q.ID]:
				want = report.Unverifiable
			default:
				want = report.Pass
			}
			if q.Status != want {
				t.Errorf("%s: %s is %s, want %s: %s", name, q.ID, q.Status, want, q.Reason)
			}
			if q.Profile != spec.ProfileMemoryProvider {
				t.Errorf("%s has profile %q", q.ID, q.Profile)
			}
		}
		if stats.GeneratedCalls == 0 || stats.Launches != 1 {
			t.Errorf("%s: stats %+v", name, stats)
		}
		var buf bytes.Buffer
		if err := report.WriteJSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		if err := report.ValidateJSON(spec.ReportSchema, buf.Bytes()); err != nil {
			t.Errorf("%s: the report does not validate: %v", name, err)
		}
	}
}

// TestOtherCategory: a tool plugin checked as a memory provider is a
// launch error naming what it serves not.
func TestOtherCategory(t *testing.T) {
	testrace.SkipUnderRace(t)
	rep, _, err := Run(context.Background(), options("tool"))
	var lerr *category.LaunchError
	if !errors.As(err, &lerr) || !strings.Contains(lerr.Reason, "does not serve MemoryService") || rep == nil {
		t.Fatalf("err = %v", err)
	}
}
