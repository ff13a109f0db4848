package shard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/harness/shard"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/server"
	"github.com/agentconform/conform/spec"
)

func inProcess(name string, parts loop.Parts) adapter.Launcher {
	return adapter.InProcess{Name: name, Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		return server.Serve(ctx, refkernel.New(parts), in, out)
	}}
}

// The whole embedded suite, run once and run as four shards merged, gives
// the same verdict on every requirement, against the reference kernel and
// against a broken one (its history step removed), whose failures are
// spread over every shard: a requirement one shard passes and another
// fails must fail the merge, as it fails the single run.
func TestMergeEqualsSingleRun(t *testing.T) {
	if testing.Short() || raceEnabled {
		// Five whole-suite runs per kernel: under the race detector that
		// alone takes minutes. make test runs it without -race (e2e).
		t.Skip("runs the whole suite five times per kernel (make e2e runs it without -race)")
	}
	broken := loop.DefaultParts()
	broken.Steps = loop.Without(loop.DefaultSteps(), loop.StepHistory)
	for _, k := range []struct {
		name  string
		parts loop.Parts
	}{{"reference", loop.DefaultParts()}, {"no-history", broken}} {
		t.Run(k.name, func(t *testing.T) {
			l := inProcess(k.name, k.parts)
			opt := runner.Options{Launcher: l, Concurrency: 12, ScenarioTimeout: 30 * time.Second, FS: features.FS, Root: "."}
			single, err := runner.Run(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			refs, err := runner.SelectRun(opt.FS, opt.Root, "", opt.Slow)
			if err != nil {
				t.Fatal(err)
			}
			items := make([]shard.Item, len(refs))
			for i, r := range refs {
				items[i] = shard.Item{Ref: fmt.Sprintf("%s:%d", r.File, r.Line)}
			}
			// The four shards run at once, as a CI matrix runs them: the
			// suite waits on kernels and timers more than on the cores, so
			// this takes about one shard's time instead of four.
			var srcs []shard.Source
			shardVerdicts := map[string]map[report.Status]bool{}
			type ran struct {
				mine []string
				r    *report.Report
				err  error
			}
			runs := make([]ran, 4)
			var wg sync.WaitGroup
			for kk := 1; kk <= 4; kk++ {
				sh := shard.Spec{K: kk, N: 4}
				mine, balance := shard.Assign(items, nil, sh)
				keep := map[string]bool{}
				for _, r := range mine {
					keep[r] = true
				}
				o := opt
				o.Concurrency = opt.Concurrency / 4
				o.Only = func(r runner.ScenarioRef) bool { return keep[fmt.Sprintf("%s:%d", r.File, r.Line)] }
				o.Shard = &report.ShardInfo{K: kk, N: 4, Balance: string(balance), Selected: len(refs)}
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := runner.Run(context.Background(), o)
					runs[kk-1] = ran{mine, r, err}
				}()
			}
			wg.Wait()
			for i, x := range runs {
				sh := shard.Spec{K: i + 1, N: 4}
				r, mine := x.r, x.mine
				if x.err != nil {
					t.Fatal(x.err)
				}
				if len(r.Scenarios) != len(mine) {
					t.Fatalf("shard %s ran %d scenarios, was given %d", sh, len(r.Scenarios), len(mine))
				}
				if r.Compliance.Level != report.LevelNone {
					t.Fatalf("shard %s claims compliance: %s", sh, r.Compliance.Label)
				}
				for _, q := range r.Requirements {
					if shardVerdicts[q.ID] == nil {
						shardVerdicts[q.ID] = map[report.Status]bool{}
					}
					shardVerdicts[q.ID][q.Status] = true
				}
				srcs = append(srcs, shard.Source{Name: "shard " + sh.String(), Report: roundTrip(t, r)})
			}
			cat, err := spec.Load()
			if err != nil {
				t.Fatal(err)
			}
			merged, err := shard.Merge(cat, srcs)
			if err != nil {
				t.Fatal(err)
			}
			if len(merged.Scenarios) != len(single.Scenarios) {
				t.Fatalf("merged %d scenarios, single run %d", len(merged.Scenarios), len(single.Scenarios))
			}
			decidedAcross, fails := 0, 0
			for i, q := range single.Requirements {
				m := merged.Requirements[i]
				if m.ID != q.ID || m.Status != q.Status || m.Partial != q.Partial {
					t.Errorf("%s: merged %s (partial %v), single run %s (partial %v): %s", q.ID, m.Status, m.Partial, q.Status, q.Partial, m.Reason)
				}
				if q.Status == report.Fail {
					fails++
				}
				if v := shardVerdicts[q.ID]; v[report.Pass] && (v[report.Fail] || v[report.Error]) {
					decidedAcross++ // one shard alone would have passed it
				}
			}
			if merged.Compliance.Label != single.Compliance.Label {
				t.Errorf("compliance: merged %q, single %q", merged.Compliance.Label, single.Compliance.Label)
			}
			t.Logf("%s: %d requirements equal, %d failing, %d passing in one shard and failing in another; %d scenarios", k.name, len(single.Requirements), fails, decidedAcross, len(single.Scenarios))
			if k.name == "no-history" && (fails == 0 || decidedAcross == 0) {
				t.Fatalf("the broken kernel should fail requirements that shards disagree on: %d failing, %d disagreements", fails, decidedAcross)
			}
		})
	}
}

func roundTrip(t *testing.T, r *report.Report) *report.Report {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.ValidateJSON(spec.ReportSchema, data); err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}
