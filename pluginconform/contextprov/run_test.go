package contextprov

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/refplugin"
	"github.com/agentconform/conform/refplugin/refcontext"
	"github.com/agentconform/conform/spec"
)

// TestMain lets the test binary be the plugin under test: "<binary> serve
// NAME" serves the reference, a variant, or a broken plugin.
func TestMain(m *testing.M) {
	refplugin.MaybeChild()
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		switch os.Args[2] {
		case "reference":
			refcontext.Serve(refcontext.Faults{})
		case "compactor":
			refcontext.Serve(refcontext.Faults{Compactor: true})
		case "hang":
			refcontext.Serve(refcontext.Faults{HangContribute: true})
		case "flood":
			refcontext.Serve(refcontext.Faults{FloodStderr: true})
		case "render-crash":
			refcontext.ServeWith(refcontext.Faults{}, func(p *refcontext.Provider) contextv1.ContextServiceServer { return renderCrash{p} })
		case "tool":
			refplugin.Serve(refplugin.Faults{})
		case "garbage":
			fmt.Println("hello, I am not a plugin")
			time.Sleep(time.Minute)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func options(name string) Options {
	return Options{Argv: []string{os.Args[0], "serve", name}, Env: launch.BaseEnv(nil), Cases: 15, Seed: 7, StartTimeout: 30 * time.Second}
}

// TestReference: the reference passes every row but the compactor's; the
// compactor variant passes those; neither fails anything; the report
// validates.
func TestReference(t *testing.T) {
	testrace.SkipUnderRace(t)
	notApplicable := map[string]map[string]report.Status{
		"reference": {"CP-21": report.NotTested, "CP-22": report.NotTested, "CP-23": report.Skipped},
		"compactor": {"CP-09": report.NotTested, "CP-10": report.NotTested, "CP-14": report.NotTested, "CP-20": report.NotTested, "CP-22": report.Unverifiable},
	}
	for name, other := range notApplicable {
		rep, stats, err := Run(context.Background(), options(name))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range rep.Requirements {
			want, ok := other[q.ID]
			if !ok {
				want = report.Pass
			}
			if q.Status != want {
				t.Errorf("%s: %s is %s, want %s: %s", name, q.ID, q.Status, want, q.Reason)
			}
			if q.Profile != spec.ProfileContextProvider {
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

// TestBadInput: a plugin that never handshakes, one of another category,
// one that hangs in Contribute and one that floods its stderr each get a
// clear error naming what they did, and the run ends.
func TestBadInput(t *testing.T) {
	testrace.SkipUnderRace(t)
	for _, tc := range []struct{ name, want string }{
		{"garbage", "not a go-plugin handshake line"},
		{"tool", "does not serve ContextService"},
	} {
		opt := options(tc.name)
		rep, _, err := Run(context.Background(), opt)
		var lerr *category.LaunchError
		if !errors.As(err, &lerr) || !strings.Contains(lerr.Reason, tc.want) {
			t.Errorf("%s: err = %v, want a LaunchError saying %q", tc.name, err, tc.want)
		}
		if rep == nil {
			t.Fatalf("%s: no report", tc.name)
		}
		for _, q := range rep.Requirements {
			if q.Status != report.Error && q.Status != report.Fail {
				t.Errorf("%s: %s is %s", tc.name, q.ID, q.Status)
			}
		}
	}
	opt := options("hang")
	opt.CallTimeout = time.Second
	rep, _, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range rep.Scenarios {
		if s.Status == report.Error && strings.Contains(s.Failure, "did not answer within") {
			found = true
		}
	}
	if !found {
		t.Error("a hung Contribute is not reported as an error naming the hang")
	}
	if rep, _, err = Run(context.Background(), options("flood")); err != nil || rep == nil {
		t.Fatalf("a flooding plugin: %v", err)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "flooded its stderr") {
		t.Errorf("the report does not name the flood: %q", rep.Warnings)
	}
}

// renderCrash is the reference but for Render of an empty payload, which
// kills the plugin (as a Render calling Error on a nil error would).
type renderCrash struct{ *refcontext.Provider }

func (r renderCrash) Render(ctx context.Context, req *contextv1.RenderRequest) (*contextv1.RenderResponse, error) {
	if len(req.GetPayload()) == 0 {
		panic("render-crash: an empty payload")
	}
	return r.Provider.Render(ctx, req)
}

// TestRenderCrash: a plugin that dies on Render of a payload it never
// emitted (an empty section) fails CP-30, naming the payload, and nothing
// else; the reference answers it (TestReference).
func TestRenderCrash(t *testing.T) {
	testrace.SkipUnderRace(t)
	rep, _, err := Run(context.Background(), options("render-crash"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range rep.Requirements {
		switch {
		case q.ID == "CP-30":
			if q.Status != report.Fail || !strings.Contains(q.Reason, "an empty section") {
				t.Errorf("CP-30 is %s (%s), want a fail naming the empty section", q.Status, q.Reason)
			}
		case q.Status == report.Fail || q.Status == report.Error:
			t.Errorf("collateral: %s is %s: %s", q.ID, q.Status, q.Reason)
		}
	}
}
