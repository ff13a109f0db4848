package model

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/pluginconform/category"
)

// Plugins that cannot be checked at all get a report with every row in
// error, naming what they did.
func TestLaunchFailures(t *testing.T) {
	testrace.SkipUnderRace(t)
	for name, want := range map[string]string{
		"hang": "handshake line",
		"tool": "does not serve pluggableharness.model.v1.ModelService",
	} {
		t.Run(name, func(t *testing.T) {
			opt := options(t, name)
			if name == "hang" {
				// Only the hang needs the start timeout to run out.
				opt.StartTimeout = 2 * time.Second
			}
			rep, _, err := Run(context.Background(), opt)
			var le *category.LaunchError
			if !errors.As(err, &le) || rep == nil {
				t.Fatalf("err = %v, report %v", err, rep != nil)
			}
			if !strings.Contains(le.Reason, want) {
				t.Errorf("reason %q does not say %q", le.Reason, want)
			}
			if name == "tool" && !strings.Contains(le.Reason, "pluggableharness.tool.v1.ToolService") {
				t.Errorf("reason %q does not name what the plugin serves", le.Reason)
			}
			for _, q := range rep.Requirements {
				if q.Status != report.Error {
					t.Errorf("%s is %s", q.ID, q.Status)
				}
			}
		})
	}
}

// Each misbehaviour fails the row it breaks, naming what the plugin did,
// and the run goes on to give every other row its verdict.
func TestMisbehaviourIsNamed(t *testing.T) {
	testrace.SkipUnderRace(t)
	for _, c := range []struct{ name, id, want string }{
		{"after-stop", "MP-11", "came after the terminal stop"},
		{"unknown-code", "MP-15", "gRPC status Unknown"},
		{"negative-usage", "MP-31", "output_tokens -1"},
		{"hung-stream", "MP-33", "hung"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := options(t, c.name)
			opt.CallTimeout = 2 * time.Second
			rep, _, err := Run(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range rep.Requirements {
				switch {
				case q.ID == c.id:
					if (q.Status != report.Fail && q.Status != report.Error) || !strings.Contains(q.Reason, c.want) {
						t.Errorf("%s is %s: %q, want a fail or error saying %q", q.ID, q.Status, q.Reason, c.want)
					}
				case q.Status == report.Fail || q.Status == report.Error:
					t.Errorf("%s is %s too: %s", q.ID, q.Status, q.Reason)
				case q.Status == report.NotTested:
					t.Errorf("%s was not tested: the run did not go on", q.ID)
				}
			}
		})
	}
}

// A secret echoed in a vendor-error body or a log entry fails MP-18,
// naming where, and no report carries it.
func TestSecretsNeverReachTheReport(t *testing.T) {
	testrace.SkipUnderRace(t)
	opt := options(t, "leaky")
	opt.Rand = bytes.NewReader(bytes.Repeat([]byte{0x42}, 64))
	const canary = "conform-canary-424242424242424242424242"
	rep, _, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var mp18 report.RequirementResult
	for _, q := range rep.Requirements {
		if q.ID == "MP-18" {
			mp18 = q
		}
	}
	var places []string
	for _, f := range mp18.Failures {
		places = append(places, f.Message)
	}
	all := strings.Join(places, "\n")
	if mp18.Status != report.Fail || !strings.Contains(all, "StreamCompletion") || !strings.Contains(all, "Log callback") {
		t.Errorf("MP-18 is %s, failures:\n%s", mp18.Status, all)
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"json":     func(b *bytes.Buffer) error { return report.WriteJSON(b, rep) },
		"markdown": func(b *bytes.Buffer) error { return report.WriteMarkdown(b, rep) },
		"html":     func(b *bytes.Buffer) error { return report.WriteHTML(b, rep) },
		"text":     func(b *bytes.Buffer) error { return report.WriteText(b, rep) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), canary) {
			t.Errorf("the %s report carries the secret", name)
		}
	}
}

// A plugin that floods its stderr and the Log callback passes (no rule
// forbids noise), and the report warns about the flood.
func TestLogFloodIsNamed(t *testing.T) {
	testrace.SkipUnderRace(t)
	rep, _, err := Run(context.Background(), options(t, "flood"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Compliance.Level != "all" {
		t.Errorf("compliance %s: %s", rep.Compliance.Level, rep.Compliance.Label)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "log flood") {
		t.Errorf("no warning names the flood: %v", rep.Warnings)
	}
}
