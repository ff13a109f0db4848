package fuzz

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/server"
)

func reference() adapter.Launcher {
	return adapter.InProcess{Name: "reference", Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		return server.Serve(ctx, refkernel.New(refkernel.DefaultParts()), in, out)
	}}
}

// cases is the number of generated sessions per property run: at least
// 1,000 in a normal test run.
func cases() int {
	if testing.Short() {
		return 100
	}
	return 1000
}

// The reference kernel keeps every invariant on every generated session.
func TestPropertiesReference(t *testing.T) {
	testrace.SkipUnderRace(t)
	n := cases()
	res, err := Run(context.Background(), Options{Launcher: reference(), Cases: n})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed {
		t.Fatalf("seed %d: %s\n%s", res.Seed, res.Failure, res.Feature)
	}
	if want := n; res.Cases < want && !testing.Short() { // rapid runs a fifth with -short
		t.Fatalf("only %d cases ran", res.Cases)
	}
	t.Logf("%d generated sessions against the reference kernel in %v (%v per session), seed %d",
		res.Cases, res.Elapsed.Round(time.Millisecond), (res.Elapsed / time.Duration(res.Cases)).Round(time.Microsecond), res.Seed)
}

// Cases that take real time: a held tool and a wall-clock bound of a tenth
// of a second or so.
func TestPropertiesReferenceRealTime(t *testing.T) {
	testrace.SkipUnderRace(t)
	if testing.Short() {
		t.Skip("takes real time")
	}
	res, err := Run(context.Background(), Options{Launcher: reference(), Cases: 40, RealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed {
		t.Fatalf("seed %d: %s\n%s", res.Seed, res.Failure, res.Feature)
	}
	t.Logf("%d generated sessions with real-time wall clocks in %v", res.Cases, res.Elapsed.Round(time.Millisecond))
}

// Every generated case renders as a feature file the step library reads.
func TestFeatureRendering(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := Generate(rt, Capabilities{CostBound: true, WallClockBound: true, RealTime: true})
		f := c.Feature("title")
		want := []string{"Scenario:", "When the session runs for at most"}
		for _, ch := range c.Checks() {
			want = append(want, ch.Text, "@"+ch.Requirement)
		}
		for _, want := range want {
			if !strings.Contains(f, want) {
				rt.Fatalf("the feature lacks %q:\n%s", want, f)
			}
		}
	})
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}

// Every check of a generated scenario proves exactly one requirement, and
// every requirement the scenario is tagged with is proven by one of its
// checks: a shrunk failure fails the requirement of the invariant that broke
// and no other.
func TestAttributionOfGeneratedCases(t *testing.T) {
	testrace.SkipUnderRace(t)
	pool := driver.NewPool(reference())
	defer pool.Close()
	caps := Capabilities{CostBound: true, WallClockBound: true}
	rapid.Check(t, func(rt *rapid.T) {
		c := Generate(rt, caps)
		r, err := runner.Run(context.Background(), runner.Options{
			Launcher: reference(), Pool: pool,
			FS: fstest.MapFS{"case.feature": {Data: []byte(c.Feature("attribution"))}}, Root: ".",
			Concurrency: 1, ScenarioTimeout: 10 * time.Second,
		})
		if err != nil {
			rt.Fatal(err)
		}
		sc := r.Scenarios[0]
		if sc.Status != report.Pass {
			rt.Fatalf("the reference kernel: %s %s", sc.Status, sc.Failure)
		}
		proven := map[string]bool{}
		for _, ch := range sc.Checks {
			if len(ch.Requirements) != 1 {
				rt.Fatalf("check %q proves %v; a generated check proves exactly one requirement", ch.Step, ch.Requirements)
			}
			proven[ch.Requirements[0]] = true
		}
		for _, id := range sc.Requirements {
			if !proven[id] {
				rt.Fatalf("the case is tagged @%s, but none of its checks proves it", id)
			}
		}
		if len(proven) != len(sc.Requirements) {
			rt.Fatalf("the checks prove %v, the case is tagged %v", proven, sc.Requirements)
		}
	})
}
