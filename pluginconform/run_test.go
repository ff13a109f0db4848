package pluginconform

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
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/spec"
)

func options(t *testing.T, name string) Options {
	return Options{
		Argv: []string{os.Args[0], "serve", name}, Env: launch.BaseEnv(nil),
		AllowEffects: t.TempDir(), ProcessBacked: []string{"exec"},
		Cases: 30, HookCases: 8, Seed: 7, StartTimeout: 30 * time.Second,
	}
}

// TestReference: the reference plugin passes every requirement conform can
// observe; PL-13 alone is unverifiable, and the JSON report validates
// against spec/report.schema.json.
func TestReference(t *testing.T) {
	testrace.SkipUnderRace(t)
	rep, stats, err := Run(context.Background(), options(t, "reference"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range rep.Requirements {
		want := report.Pass
		if q.ID == "PL-13" {
			want = report.Unverifiable
		}
		if q.Status != want {
			t.Errorf("%s is %s, want %s: %s", q.ID, q.Status, want, q.Reason)
		}
		if q.Profile != spec.ProfilePlugin {
			t.Errorf("%s has profile %q", q.ID, q.Profile)
		}
	}
	if !strings.Contains(rep.Compliance.Label, "of 31 plugin requirements") || rep.Compliance.Level != report.LevelAll {
		t.Errorf("label %q (level %s)", rep.Compliance.Label, rep.Compliance.Level)
	}
	if stats.GeneratedCalls == 0 || stats.Launches != 1 {
		t.Errorf("stats %+v", stats)
	}
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if err := report.ValidateJSON(spec.ReportSchema, buf.Bytes()); err != nil {
		t.Errorf("the plugin report does not validate: %v", err)
	}
	for _, w := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return report.WriteJUnit(b, rep) },
		func(b *bytes.Buffer) error { return report.WriteMarkdown(b, rep) },
		func(b *bytes.Buffer) error { return report.WriteHTML(b, rep) },
	} {
		var b bytes.Buffer
		if err := w(&b); err != nil {
			t.Error(err)
		}
	}
}

// TestBrokenLaunches: a plugin that cannot be launched gets every
// requirement in error, with the reason naming what it did.
func TestBrokenLaunches(t *testing.T) {
	for name, want := range map[string]string{
		"garbage": "is not a go-plugin handshake line",
		"hang":    "did not print its handshake line",
		"crash":   "before printing its handshake line",
	} {
		t.Run(name, func(t *testing.T) {
			opt := options(t, name)
			// Only the hang needs the start timeout to run out; the others
			// end the handshake themselves, and get a minute so that a
			// race-built test binary starting slowly on a busy machine is
			// not taken for a hang.
			opt.StartTimeout = time.Minute
			if name == "hang" {
				opt.StartTimeout = 500 * time.Millisecond
			}
			rep, _, err := Run(context.Background(), opt)
			var le *LaunchError
			if !errors.As(err, &le) || rep == nil {
				t.Fatalf("err = %v, report %v; want a LaunchError with a report", err, rep != nil)
			}
			if !strings.Contains(le.Reason, want) {
				t.Errorf("reason %q does not say %q", le.Reason, want)
			}
			if name == "crash" && !strings.Contains(le.Reason, "no configuration file") {
				t.Errorf("reason %q lacks the plugin's stderr", le.Reason)
			}
			for _, q := range rep.Requirements {
				if q.Status != report.Error {
					t.Errorf("%s is %s, want error", q.ID, q.Status)
				}
			}
			if rep.Compliance.Level != report.LevelNone {
				t.Errorf("level %s", rep.Compliance.Level)
			}
		})
	}
}

// TestNoEffectsWithoutPermission: without AllowEffects no resource
// operation runs, and the checks it would have made say why they were not
// reached.
func TestNoEffectsWithoutPermission(t *testing.T) {
	opt := options(t, "reference")
	opt.AllowEffects = ""
	rep, _, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range rep.Scenarios {
		if strings.HasPrefix(s.File, "plugin/invoke/write_note") || strings.HasPrefix(s.File, "plugin/invoke/exec") {
			for _, c := range s.Checks {
				if c.Status != report.NotReached || !strings.Contains(c.Message, "--allow-effects") {
					t.Errorf("%s: %s %s", s.Name, c.Status, c.Message)
				}
				found = true
			}
		}
	}
	if !found {
		t.Error("no scenario says the resource operations were left out")
	}
	for _, q := range rep.Requirements {
		if q.Status == report.Fail || q.Status == report.Error {
			t.Errorf("%s %s: %s", q.ID, q.Status, q.Reason)
		}
	}
}
