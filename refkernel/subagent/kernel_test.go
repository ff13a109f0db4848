package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// treeHost is an in-process harness for whole session trees: its spawn tool
// calls Kernel.Spawn directly, its model answers from a script by the
// session's tree level, and it keeps the statistics the invariants need,
// from the session_meta rows and cost reports the kernel sends.
type treeHost struct {
	*fakehost.Host
	k      *refkernel.Kernel
	root   string
	script func(level, n int, p wire.ModelStreamParams) (res wire.ModelStreamResult, hang bool)
	// onRequest sees every model request's running count over the tree.
	onRequest func(total int)

	total atomic.Int64
	mu    sync.Mutex
	level map[string]int
	count map[string]int
	// bookkeeping from the rows: per parent, how many children run now and
	// at most; per session, start and end rows.
	parent  map[string]string
	running map[string]int
	most    map[string]int
	starts  map[string]int
	ends    map[string]int
	status  map[string]string
	cost    map[string]float64
	in, out map[string]int64
	results map[string]wire.RunSessionResult
}

func newTreeHost(k *refkernel.Kernel, root string) *treeHost {
	return &treeHost{
		Host: &fakehost.Host{Quiet: true}, k: k, root: root,
		level: map[string]int{root: 0}, count: map[string]int{}, parent: map[string]string{},
		running: map[string]int{}, most: map[string]int{}, starts: map[string]int{}, ends: map[string]int{},
		status: map[string]string{}, cost: map[string]float64{}, in: map[string]int64{}, out: map[string]int64{},
		results: map[string]wire.RunSessionResult{},
	}
}

func (h *treeHost) Notify(method string, params any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch v := params.(type) {
	case wire.SessionMeta:
		if v.Status == wire.StatusRunning {
			h.starts[v.SessionID]++
			if v.ParentSessionID != "" {
				h.parent[v.SessionID] = v.ParentSessionID
				h.level[v.SessionID] = h.level[v.ParentSessionID] + 1
				h.running[v.ParentSessionID]++
				h.most[v.ParentSessionID] = max(h.most[v.ParentSessionID], h.running[v.ParentSessionID])
			}
			return
		}
		h.ends[v.SessionID]++
		h.status[v.SessionID] = v.Status
		if v.ParentSessionID != "" {
			h.running[v.ParentSessionID]--
		}
	case wire.CostUsage:
		h.cost[v.SessionID] += v.CostUSD
		h.in[v.SessionID] += v.Usage.InputTokens
		h.out[v.SessionID] += v.Usage.OutputTokens
	}
}

func (h *treeHost) Stream(ctx context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
	h.mu.Lock()
	h.count[p.CallContext.SessionID]++
	n, lvl := h.count[p.CallContext.SessionID], h.level[p.CallContext.SessionID]
	h.mu.Unlock()
	total := int(h.total.Add(1))
	res, hang := h.script(lvl, n, p)
	if h.onRequest != nil {
		h.onRequest(total)
	}
	if hang {
		<-ctx.Done()
		return wire.ModelStreamResult{}, ctx.Err()
	}
	return res, nil
}

// Invoke runs the spawn tool like the wire fake does: the spawn outlives a
// cancelled invoke, so any cancellation of the child is the kernel's own.
func (h *treeHost) Invoke(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
	if p.Tool != "spawn" {
		return wire.ToolInvokeResult{Output: json.RawMessage(`"ok"`)}, nil
	}
	var in struct{ Profile, Prompt string }
	_ = json.Unmarshal(p.Input, &in)
	type answer struct {
		res wire.RunSessionResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := h.k.Spawn(context.WithoutCancel(ctx), h, wire.SpawnParams{
			ParentSessionID: p.CallContext.SessionID, CallID: p.CallID, Profile: in.Profile, Prompt: in.Prompt,
		})
		if err == nil {
			h.mu.Lock()
			h.results[res.SessionID] = res
			h.mu.Unlock()
		}
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			return wire.ToolInvokeResult{Output: json.RawMessage(`"spawn refused"`), IsError: true, ErrorCategory: wire.ToolErrExecutionFailed}, nil
		}
		out, _ := json.Marshal(a.res.Status)
		return wire.ToolInvokeResult{Output: out}, nil
	case <-ctx.Done():
		return wire.ToolInvokeResult{}, ctx.Err()
	}
}

// subtree is a session and its descendants, from the rows.
func (h *treeHost) subtree(id string) []string {
	var out []string
	for s := range h.starts {
		for cur := s; cur != ""; cur = h.parent[cur] {
			if cur == id {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

func config(maxDepth, maxConcurrent int, budget *float64, profiles ...wire.ChildProfile) wire.SessionConfig {
	turns := 6
	return wire.SessionConfig{
		Profile: "root",
		Bounds:  wire.Bounds{MaxTurns: &turns, MaxCostUSD: budget},
		Hooks:   wire.Hooks{DefaultTimeoutMS: 1000, Subscribers: []wire.Subscriber{}},
		Policy:  wire.Policy{Rules: []wire.PolicyRule{{Name: "spawn", Tool: "spawn", Decision: wire.PolicyAllow}}},
		Model: wire.ModelSpec{Name: "m", SupportsToolUse: true, SupportsParallelToolCalls: true,
			Pricing: wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{{InputPerMtok: 1, OutputPerMtok: 0}}}},
		Tools: []wire.ToolSchema{
			{Provider: "agents", Name: "spawn", Kind: wire.KindResource, Risk: "critical", SpawnCapable: true, Concurrency: &wire.ConcurrencySpec{Safe: true}},
			{Provider: "web", Name: "search", Kind: wire.KindDataSource, Risk: "read_only", Concurrency: &wire.ConcurrencySpec{Safe: true}},
		},
		Subagents: &wire.Subagents{MaxConcurrent: maxConcurrent, MaxDepth: maxDepth, Profiles: profiles},
	}
}

func withUsage(r wire.ModelStreamResult, tokens int64) wire.ModelStreamResult {
	return fakehost.With(r, fakehost.Usage(tokens, 0))
}

func spawns(n int, profile string, turn int) wire.ModelStreamResult {
	var calls []wire.StreamEvent
	for i := range n {
		calls = append(calls, fakehost.Call(fmt.Sprintf("t%d-s%d", turn, i), "spawn", fmt.Sprintf(`{"profile":%q,"prompt":"task %d"}`, profile, i)))
	}
	return fakehost.Calls(calls...)
}

func search(n int) wire.ModelStreamResult {
	return fakehost.Calls(fakehost.Call(fmt.Sprintf("q%d", n), "search", fmt.Sprintf(`{"q":%d}`, n)))
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// TestTreeProperties runs random spawn trees (fan-out, depth budgets,
// profiles, recursion, cost budgets, extra turns, a cancellation at a random
// moment) and checks the invariants of the session tree: never more than
// max_concurrent children of one parent at once, no session deeper than the
// root's depth budget, every session ending exactly once with nothing left
// running, and cost and token totals adding up over every subtree.
func TestTreeProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		depth := rapid.IntRange(0, 3).Draw(rt, "max_depth")
		capN := rapid.IntRange(1, 3).Draw(rt, "max_concurrent")
		levels := depth + 1 // the scripts try to go one level deeper than allowed
		fan := make([]int, levels+1)
		extra := make([]int, levels+1)
		tokens := make([]int64, levels+1)
		for l := 0; l <= levels; l++ {
			fan[l] = rapid.IntRange(0, 3).Draw(rt, fmt.Sprintf("fan-out %d", l))
			extra[l] = rapid.IntRange(0, 2).Draw(rt, fmt.Sprintf("extra turns %d", l))
			tokens[l] = rapid.Int64Range(0, 200_000).Draw(rt, fmt.Sprintf("tokens %d", l))
		}
		var profiles []wire.ChildProfile
		for l := 1; l <= levels; l++ {
			p := wire.ChildProfile{Name: fmt.Sprintf("p%d", l), Tools: []string{"search"}}
			if rapid.Bool().Draw(rt, fmt.Sprintf("recursive %d", l)) {
				p.Tools = append(p.Tools, "spawn")
			}
			if rapid.Bool().Draw(rt, fmt.Sprintf("has max_depth %d", l)) {
				d := rapid.IntRange(0, 3).Draw(rt, fmt.Sprintf("max_depth %d", l))
				p.MaxDepth = &d
			}
			if rapid.Bool().Draw(rt, fmt.Sprintf("has cap %d", l)) {
				c := rapid.Float64Range(0.05, 1).Draw(rt, fmt.Sprintf("cap %d", l))
				p.MaxCostUSD = &c
			}
			profiles = append(profiles, p)
		}
		var budget *float64
		if rapid.Bool().Draw(rt, "root budget") {
			b := rapid.Float64Range(0.1, 2).Draw(rt, "max_cost_usd")
			budget = &b
		}
		cancelAt := rapid.IntRange(0, 30).Draw(rt, "cancel at request (0: never)")

		k := refkernel.New(refkernel.Parts{})
		h := newTreeHost(k, "root")
		h.script = func(level, n int, p wire.ModelStreamParams) (wire.ModelStreamResult, bool) {
			switch {
			case p.Purpose == wire.PurposeFinalAnswer:
				return withUsage(fakehost.Text("final"), tokens[level]), false
			case n == 1 && level < levels && fan[level] > 0:
				return withUsage(spawns(fan[level], fmt.Sprintf("p%d", level+1), n), tokens[level]), false
			case n <= 1+extra[level]:
				return withUsage(search(n), tokens[level]), false
			}
			return withUsage(fakehost.Text("done"), tokens[level]), false
		}
		if cancelAt > 0 {
			h.onRequest = func(total int) {
				if total == cancelAt {
					go func() { _ = k.Cancel("root") }()
				}
			}
		}
		res, err := runWithin(k, h, config(depth, capN, budget, profiles...), 20*time.Second)
		if err != nil {
			rt.Fatal(err)
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if k.Live() != 0 {
			rt.Fatalf("%d sessions still live after the root ended", k.Live())
		}
		total, in, out := 0.0, int64(0), int64(0)
		for id := range h.starts {
			if h.starts[id] != 1 || h.ends[id] != 1 {
				rt.Fatalf("session %s: %d start rows, %d end rows", id, h.starts[id], h.ends[id])
			}
			if h.level[id] > depth {
				rt.Fatalf("session %s is at depth %d, beyond the root's budget %d", id, h.level[id], depth)
			}
			if h.status[id] == wire.StatusRunning || h.status[id] == "" {
				rt.Fatalf("session %s ended with status %q", id, h.status[id])
			}
			total += h.cost[id]
			in += h.in[id]
			out += h.out[id]
		}
		for p, m := range h.most {
			if m > capN {
				rt.Fatalf("%s had %d children running at once; the cap is %d", p, m, capN)
			}
		}
		if !near(res.TotalCostUSD, total) || res.TotalInputTokens != in || res.TotalOutputTokens != out {
			rt.Fatalf("root totals $%v %d/%d, the tree spent $%v %d/%d", res.TotalCostUSD, res.TotalInputTokens, res.TotalOutputTokens, total, in, out)
		}
		for id, r := range h.results {
			sum, tin := 0.0, int64(0)
			for _, s := range h.subtree(id) {
				sum += h.cost[s]
				tin += h.in[s]
			}
			if !near(r.TotalCostUSD, sum) || r.TotalInputTokens != tin {
				rt.Fatalf("child %s reports $%v %d, its subtree spent $%v %d", id, r.TotalCostUSD, r.TotalInputTokens, sum, tin)
			}
			if r.Status != h.status[id] {
				rt.Fatalf("child %s answered %q, its end row says %q", id, r.Status, h.status[id])
			}
		}
	})
}

func runWithin(k *refkernel.Kernel, h *treeHost, cfg wire.SessionConfig, d time.Duration) (wire.RunSessionResult, error) {
	type out struct {
		res wire.RunSessionResult
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := k.Run(context.Background(), h, wire.RunParams{SessionID: h.root, Prompt: "go", Config: cfg})
		ch <- out{res, err}
	}()
	select {
	case o := <-ch:
		return o.res, o.err
	case <-time.After(d):
		return wire.RunSessionResult{}, fmt.Errorf("the root session did not end within %v", d)
	}
}

// cancelTree runs root → 10 managers → 10 workers each, waits until all 100
// workers hang in their model call, cancels the root and returns how long
// the whole tree took to end.
func cancelTree(tb testing.TB) time.Duration {
	tb.Helper()
	k := refkernel.New(refkernel.Parts{})
	h := newTreeHost(k, "root")
	var hanging atomic.Int64
	all := make(chan struct{})
	h.script = func(level, n int, p wire.ModelStreamParams) (wire.ModelStreamResult, bool) {
		switch {
		case level < 2 && n == 1:
			return spawns(10, fmt.Sprintf("p%d", level+1), n), false
		case level == 2:
			if hanging.Add(1) == 100 {
				close(all)
			}
			return wire.ModelStreamResult{}, true
		}
		return fakehost.Text("done"), false
	}
	cfg := config(2, 10, nil,
		wire.ChildProfile{Name: "p1", Tools: []string{"spawn"}},
		wire.ChildProfile{Name: "p2", Tools: []string{}})
	type out struct {
		res wire.RunSessionResult
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := k.Run(context.Background(), h, wire.RunParams{SessionID: "root", Prompt: "go", Config: cfg})
		ch <- out{res, err}
	}()
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		tb.Fatalf("only %d workers reached their model call", hanging.Load())
	}
	start := time.Now()
	if err := k.Cancel("root"); err != nil {
		tb.Fatal(err)
	}
	o := <-ch
	took := time.Since(start)
	if o.err != nil || o.res.Status != wire.StatusCancelled {
		tb.Fatalf("root: %+v %v", o.res, o.err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.starts) != 111 {
		tb.Fatalf("%d sessions started, want 111", len(h.starts))
	}
	for id, st := range h.status {
		if st != wire.StatusCancelled || h.ends[id] != 1 {
			tb.Fatalf("session %s ended %q with %d end rows", id, st, h.ends[id])
		}
	}
	if k.Live() != 0 {
		tb.Fatalf("%d sessions still live", k.Live())
	}
	return took
}

// TestCancelLeavesNoGoroutine cancels a three-level tree with 100 sessions
// in flight and waits, with a bounded poll, until the goroutine count is
// back where it started.
func TestCancelLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	cancelTree(t)
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after the cancelled tree ended:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// peakHeap samples the live heap until stop is closed.
func peakHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// BenchmarkSpawn1000 spawns 1,000 children from one message under a cap of
// 8; each child runs three turns (two searches, then a text answer).
func BenchmarkSpawn1000(b *testing.B) {
	stop := make(chan struct{})
	peak := peakHeap(stop)
	for b.Loop() {
		k := refkernel.New(refkernel.Parts{})
		h := newTreeHost(k, "root")
		h.script = func(level, n int, p wire.ModelStreamParams) (wire.ModelStreamResult, bool) {
			switch {
			case level == 0 && n == 1:
				return withUsage(spawns(1000, "worker", n), 100), false
			case level == 1 && n <= 2:
				return withUsage(search(n), 100), false
			}
			return withUsage(fakehost.Text("done"), 100), false
		}
		cfg := config(1, 8, nil, wire.ChildProfile{Name: "worker", Tools: []string{"search"}})
		res, err := runWithin(k, h, cfg, 5*time.Minute)
		if err != nil || res.Status != wire.StatusCompleted {
			b.Fatalf("%+v %v", res, err)
		}
		h.mu.Lock()
		if len(h.results) != 1000 || h.most["root"] > 8 {
			b.Fatalf("%d children answered, %d at most at once", len(h.results), h.most["root"])
		}
		h.mu.Unlock()
	}
	close(stop)
	b.ReportMetric(float64(<-peak)/(1<<20), "peak-heap-MiB")
}

// BenchmarkCancelTree cancels root → 10 → 100 with every worker in flight.
func BenchmarkCancelTree(b *testing.B) {
	stop := make(chan struct{})
	peak := peakHeap(stop)
	var took time.Duration
	for b.Loop() {
		took += cancelTree(b)
	}
	close(stop)
	b.ReportMetric(float64(took.Microseconds())/1000/float64(b.N), "cancel-ms")
	b.ReportMetric(float64(<-peak)/(1<<20), "peak-heap-MiB")
}
