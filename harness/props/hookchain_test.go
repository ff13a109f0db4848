package props

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/harness/steps"
	"github.com/agentconform/conform/spec/wire"
)

// A chain case is one hook point with 0..8 subscribers of random modes and
// behaviours, declared in that order. Behaviours use the step library's
// wording, so a case prints as a runnable scenario.
type subscriber struct {
	ID        string
	Mode      string
	Behaviour string
	TimeoutMS int // 0: the session default
}

type chainCase struct {
	Point string
	Subs  []subscriber
}

var genericPoints = []string{
	wire.PointSessionStart, wire.PointPreModelCall, wire.PointPostModelResponse, wire.PointPreToolCall,
	wire.PointPlanReady, wire.PointPostToolCall, wire.PointPostApply, wire.PointSessionEnd,
}

const (
	wrongOutcome = "answers with an outcome that does not fit its mode"
	malformed    = "answers with a malformed result"
	tamper       = "changes one byte of the payload"
	otherVariant = "answers with the payload of another point"
	appendMarker = "appends"
)

// behaviours by mode; repeats weight the common cases.
var behaviours = map[string][]string{
	wire.ModeObserve:   {"answers", "answers", "answers", "answers", "fails", "crashes", "hangs", wrongOutcome, malformed, appendMarker},
	wire.ModeTransform: {appendMarker, appendMarker, appendMarker, "answers", "answers", "fails", "crashes", "hangs", wrongOutcome, malformed, tamper, otherVariant},
	wire.ModeVeto:      {"allows", "allows", "allows", "allows", "denies", "answers UNSPECIFIED", "fails", "crashes", "hangs", wrongOutcome, malformed},
}

var modes = []string{wire.ModeObserve, wire.ModeTransform, wire.ModeVeto}

// sessionDefaultMS is the default hook timeout; only hanging subscribers
// get a small timeout of their own, so a loaded machine cannot turn a
// prompt answer into a timeout.
const sessionDefaultMS = 2000

// chainCases draws a point and 0..8 subscribers.
var chainCases = rapid.Custom(func(t *rapid.T) chainCase {
	c := chainCase{Point: rapid.SampledFrom(genericPoints).Draw(t, "point")}
	n := rapid.IntRange(0, 8).Draw(t, "subscribers")
	for i := range n {
		mode := rapid.SampledFrom(modes).Draw(t, "mode")
		s := subscriber{ID: fmt.Sprintf("H%d", i+1), Mode: mode, Behaviour: rapid.SampledFrom(behaviours[mode]).Draw(t, "behaviour")}
		switch s.Behaviour {
		case appendMarker:
			s.Behaviour = fmt.Sprintf(`appends "M%d"`, i+1)
		case "hangs":
			s.TimeoutMS = rapid.IntRange(80, 160).Draw(t, "timeout_ms")
		}
		c.Subs = append(c.Subs, s)
	}
	return c
})

// ---- the spec's fold ----

type wantError struct{ id, mode, category string }

type expectation struct {
	dispatched []subscriber
	inputs     map[string][]string // markers each dispatched subscriber receives
	markers    []string            // the payload's markers after the chain
	aborted    bool                // a transform failed
	denied     bool                // a veto did not allow
	errors     []wantError         // hook_errors the kernel must report
	hangs      time.Duration       // sum of the timeouts the kernel waits out
}

func marker(behaviour string) string {
	if m, ok := strings.CutPrefix(behaviour, `appends "`); ok {
		return strings.TrimSuffix(m, `"`)
	}
	return ""
}

// transformOutcome: "" when the transform succeeds, else its category.
func transformOutcome(point, b string) string {
	switch {
	case b == "answers":
		return ""
	case marker(b) != "":
		if point == wire.PointPreModelCall {
			return ""
		}
		return wire.HookErrInvalidResponse // nothing is mutable elsewhere
	case b == "fails":
		return wire.HookErrTransformFailed
	case b == "crashes":
		return wire.HookErrProcessCrashed
	case b == "hangs":
		return wire.HookErrTimeout
	}
	return wire.HookErrInvalidResponse
}

// vetoOutcome: whether it allows, and the category of a failed veto.
func vetoOutcome(b string) (bool, string) {
	switch b {
	case "allows", "answers":
		return true, ""
	case "denies":
		return false, ""
	case "fails":
		return false, wire.HookErrVetoFailed
	case "crashes":
		return false, wire.HookErrProcessCrashed
	case "hangs":
		return false, wire.HookErrTimeout
	}
	return false, wire.HookErrInvalidResponse
}

func expect(c chainCase) expectation {
	e := expectation{inputs: map[string][]string{}, markers: []string{}}
	for _, s := range c.Subs {
		e.dispatched = append(e.dispatched, s)
		e.inputs[s.ID] = slices.Clone(e.markers)
		if s.Behaviour == "hangs" {
			e.hangs += time.Duration(s.TimeoutMS) * time.Millisecond
		}
		switch s.Mode {
		case wire.ModeTransform:
			if cat := transformOutcome(c.Point, s.Behaviour); cat != "" {
				e.aborted = true
				e.errors = append(e.errors, wantError{s.ID, s.Mode, cat})
				return e
			}
			if m := marker(s.Behaviour); m != "" {
				e.markers = append(e.markers, m)
			}
		case wire.ModeVeto:
			if allow, cat := vetoOutcome(s.Behaviour); !allow {
				e.denied = true
				if cat != "" {
					e.errors = append(e.errors, wantError{s.ID, s.Mode, cat})
				}
				return e
			}
		}
	}
	return e
}

// ---- running a case ----

type run struct {
	c       chainCase
	session string
	world   *fakes.World
	result  wire.RunSessionResult
	info    wire.InitializeResult
	wait0   time.Duration // adapter.SelfThreadsWait when the case began
}

func config(c chainCase) wire.SessionConfig {
	maxTurns := 5
	cfg := wire.SessionConfig{
		Profile:          "props",
		WorkingDirectory: "/conform/props",
		Bounds:           wire.Bounds{MaxTurns: &maxTurns},
		Hooks:            wire.Hooks{DefaultTimeoutMS: sessionDefaultMS, Subscribers: []wire.Subscriber{}},
		Policy:           wire.Policy{Rules: []wire.PolicyRule{{Name: "allow-write", Tool: "write", Decision: wire.PolicyAllow}}},
		Model: wire.ModelSpec{
			Name: "fake-model", SupportsToolUse: true, SupportsParallelToolCalls: true,
			Pricing: wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{{InputPerMtok: 1, OutputPerMtok: 2}}},
		},
		Tools: []wire.ToolSchema{{
			Provider: "fs", Name: "write", Kind: wire.KindResource, Risk: "moderate",
			Description: "fake resource write of provider fs", InputSchema: map[string]any{"type": "object"},
		}},
	}
	for _, s := range c.Subs {
		cfg.Hooks.Subscribers = append(cfg.Hooks.Subscribers, wire.Subscriber{ID: s.ID, Point: c.Point, Mode: s.Mode, TimeoutMS: s.TimeoutMS})
	}
	return cfg
}

func runCase(k *driver.Kernel, c chainCase, session string) (*run, error) {
	w := fakes.NewWorld()
	defer w.Close()
	defer k.Unregister(w)
	for _, s := range c.Subs {
		b, _, err := steps.ParseHookBehavior(s.Behaviour)
		if err != nil {
			return nil, fmt.Errorf("the generator wrote a behaviour the step library cannot read: %v", err)
		}
		w.Hooks.Set(s.ID, b)
	}
	w.Model.On(1, fakes.Reply{Calls: []fakes.Call{{Name: "write", Input: json.RawMessage(`{"path":"a"}`)}}})
	w.Model.On(2, fakes.Reply{Text: "Finished."})
	w.Log.SetCPUWait(adapter.SelfThreadsWait)
	wait0 := w.Log.CPUWait()
	res, err := k.Run(context.Background(), w, wire.RunParams{SessionID: session, Prompt: "Please write a.", Config: config(c)}, 20*time.Second)
	if err != nil {
		return nil, fmt.Errorf("the kernel faulted: %v", err)
	}
	return &run{c: c, session: session, world: w, result: res, info: k.Info, wait0: wait0}, nil
}

// ---- invariants ----

func (r *run) requests() []calllog.Entry {
	return r.world.Log.Select(func(e *calllog.Entry) bool {
		return e.Kind == calllog.Request && e.SessionID == r.session
	})
}

func params(e calllog.Entry) wire.HookDispatchParams {
	p, _ := e.Value.(wire.HookDispatchParams)
	return p
}

// chains splits the hook requests into chains, as the step library does.
func (r *run) chains() [][]calllog.Entry { return steps.HookChains(r.requests()) }

// sameOrder compares with the declaration order, any order being allowed
// within a run of adjacent observers when the kernel may call them
// concurrently.
func sameOrder(want []subscriber, got []string, concurrent bool) bool {
	if len(want) != len(got) {
		return false
	}
	for i := 0; i < len(want); {
		j := i + 1
		if concurrent && want[i].Mode == wire.ModeObserve {
			for j < len(want) && want[j].Mode == wire.ModeObserve {
				j++
			}
		}
		var a []string
		for _, s := range want[i:j] {
			a = append(a, s.ID)
		}
		b := slices.Clone(got[i:j])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return false
		}
		i = j
	}
	return true
}

func ids(es []calllog.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, params(e).Subscriber)
	}
	return out
}

func (r *run) markers(msgs []wire.Message) []string {
	var all []string
	for _, s := range r.c.Subs {
		if m := marker(s.Behaviour); m != "" {
			all = append(all, m)
		}
	}
	out := []string{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == wire.BlockText && slices.Contains(all, b.Text) {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// turnPoint says whether the point fires in every turn or once per call.
func turnPoint(p string) bool {
	return p == wire.PointPreModelCall || p == wire.PointPostModelResponse
}

// stopsSession lists the points where an aborted chain ends the session.
func stopsSession(p string) bool { return p != wire.PointSessionEnd }

// check returns every broken invariant.
func (r *run) check() []string {
	var bad []string
	fail := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	c, e := r.c, expect(r.c)
	concurrent := slices.Contains(r.info.Capabilities, "hooks.concurrent_observe")
	reqs := r.requests()

	// Every dispatch is at the chosen point and names it in its variant.
	for _, q := range reqs {
		if q.Method != wire.MethodHookDispatch {
			continue
		}
		if p := params(q); p.Point != c.Point || p.Payload.Variant != c.Point {
			fail("dispatch #%d to %s is at %q with variant %q, expected %q", q.Seq, p.Subscriber, p.Point, p.Payload.Variant, c.Point)
		}
	}

	// Dispatch order = declaration order up to the first short-circuit,
	// and each subscriber's payload = the fold of the transforms before it.
	want := 0
	if len(c.Subs) > 0 {
		want = 1
		if turnPoint(c.Point) && !e.aborted {
			want = 2
		}
	}
	chains := r.chains()
	if len(chains) != want {
		fail("expected %d chain(s) at %s, the kernel ran %d: %v", want, c.Point, len(chains), chainsText(chains))
	}
	for i, ch := range chains {
		if got := ids(ch); !sameOrder(e.dispatched, got, concurrent) {
			fail("chain %d dispatched %v, expected %v", i+1, got, subIDs(e.dispatched))
		}
		for _, q := range ch {
			id := params(q).Subscriber
			if got, exp := r.markers(params(q).Payload.Messages), e.inputs[id]; exp != nil && !slices.Equal(got, exp) {
				fail("chain %d: %s received markers %v, expected %v", i+1, id, got, exp)
			}
		}
	}

	// What the kernel did with the chain's outcome.
	var models []wire.ModelStreamParams
	invoked := false
	for _, q := range reqs {
		switch v := q.Value.(type) {
		case wire.ModelStreamParams:
			models = append(models, v)
		case wire.ToolInvokeParams:
			invoked = true
		}
	}
	wantModels := 2
	if e.aborted && stopsSession(c.Point) {
		wantModels = 1
		if c.Point == wire.PointSessionStart || c.Point == wire.PointPreModelCall {
			wantModels = 0
		}
	}
	if len(models) != wantModels {
		fail("expected %d model request(s), the kernel sent %d", wantModels, len(models))
	}
	if c.Point == wire.PointPreModelCall && !e.aborted {
		for i, m := range models {
			if got := r.markers(m.Messages); !slices.Equal(got, e.markers) {
				fail("model request %d carries markers %v, the fold of the transforms is %v", i+1, got, e.markers)
			}
		}
	}
	gate := c.Point == wire.PointPreToolCall || c.Point == wire.PointPlanReady
	wantInvoke := !(e.denied && gate)
	if e.aborted && slices.Contains([]string{wire.PointSessionStart, wire.PointPreModelCall, wire.PointPostModelResponse, wire.PointPreToolCall, wire.PointPlanReady}, c.Point) {
		wantInvoke = false
	}
	if invoked != wantInvoke {
		fail("expected write to be invoked: %v; it was: %v (denied %v, aborted %v)", wantInvoke, invoked, e.denied, e.aborted)
	}
	if e.denied && gate && len(models) == 2 && !deniedIn(models[1]) {
		fail("model request 2 carries no error result for the denied write call")
	}
	wantStatus := wire.StatusCompleted
	if e.aborted && stopsSession(c.Point) {
		wantStatus = r.info.Readings["hooks.transform_abort_status"]
		if wantStatus == "" {
			wantStatus = wire.StatusFailed
		}
	}
	if r.result.Status != wantStatus {
		fail("expected status %q, the session ended %q (%s)", wantStatus, r.result.Status, r.result.Error)
	}

	// Failures of transforms and vetoes are hook_errors of the subscriber.
	for _, w := range e.errors {
		if !r.hasHookError(w) {
			fail("expected a hook_error from %s (mode %s, category %s)", w.id, w.mode, w.category)
		}
	}

	// The kernel waits out a hanging subscriber's timeout, no less, and
	// the whole chain takes no more than the sum of the timeouts (plus a
	// generous allowance for everything else). Both are judged from the
	// harness's arrival times, and what a busy machine took out of them,
	// the process's waits for a CPU since the case began, is credited: the
	// tolerances are tens of milliseconds, and at load 30 a hook request
	// reached the harness 44 ms after the kernel's timer started (issue 25).
	for _, ch := range chains {
		end, endWait := ch[0].End, ch[0].EndCPUWait
		for _, q := range ch {
			if q.End.After(end) {
				end, endWait = q.End, q.EndCPUWait
			}
		}
		if n, ok := after(reqs, ch[len(ch)-1]); ok && n.Start.After(end) {
			end, endWait = n.Start, n.StartCPUWait
		}
		credit := max(0, endWait-r.wait0)
		if took, bound := end.Sub(ch[0].Start), e.hangs+time.Second; took-credit > bound {
			fail("the chain took %v, more than the timeouts allow (%v)%s", took.Round(time.Millisecond), bound, creditNote(credit))
		}
		for _, q := range ch {
			s := find(c.Subs, params(q).Subscriber)
			if s.Behaviour != "hangs" {
				continue
			}
			n, ok := afterRun(reqs, ch, q)
			if !ok {
				continue
			}
			// Measured from the arrival, which trails the kernel's timer
			// by the transit time: demand half the timeout.
			credit := max(0, n.StartCPUWait-r.wait0)
			if waited, min := n.Start.Sub(q.Start), time.Duration(s.TimeoutMS)*time.Millisecond/2; waited+credit < min {
				fail("the kernel gave up on %s after %v, before its %d ms timeout%s", s.ID, waited.Round(time.Millisecond), s.TimeoutMS, creditNote(credit))
			}
		}
	}
	return bad
}

// creditNote says how much CPU wait a timing judgement credited.
func creditNote(d time.Duration) string {
	if d < time.Millisecond {
		return ""
	}
	return fmt.Sprintf(" (crediting %v in which the process waited for a CPU)", d.Round(time.Millisecond))
}

func (r *run) hasHookError(w wantError) bool {
	for _, ev := range r.world.Events() {
		if ev.SessionID == r.session && ev.Kind == wire.EventHookError && ev.Producer == w.id &&
			ev.Payload["mode"] == w.mode && ev.Payload["category"] == w.category && ev.Payload["point"] == r.c.Point {
			return true
		}
	}
	return false
}

func deniedIn(m wire.ModelStreamParams) bool {
	uses := map[string]bool{}
	for _, msg := range m.Messages {
		for _, b := range msg.Content {
			if b.Type == wire.BlockToolUse && b.Name == "write" {
				uses[b.ID] = true
			}
			if b.Type == wire.BlockToolResult && uses[b.ToolUseID] && b.IsError {
				return true
			}
		}
	}
	return false
}

func after(reqs []calllog.Entry, e calllog.Entry) (calllog.Entry, bool) {
	for _, q := range reqs {
		if q.Seq > e.Seq {
			return q, true
		}
	}
	return calllog.Entry{}, false
}

// afterRun is the first request after e that is not an observer of e's
// chain dispatched alongside it.
func afterRun(reqs []calllog.Entry, ch []calllog.Entry, e calllog.Entry) (calllog.Entry, bool) {
	for _, q := range reqs {
		if q.Seq <= e.Seq {
			continue
		}
		sibling := params(e).Mode == wire.ModeObserve && params(q).Mode == wire.ModeObserve &&
			slices.ContainsFunc(ch, func(c calllog.Entry) bool { return c.Seq == q.Seq }) && (!e.Answered() || q.Start.Before(e.End))
		if !sibling {
			return q, true
		}
	}
	return calllog.Entry{}, false
}

func find(subs []subscriber, id string) subscriber {
	for _, s := range subs {
		if s.ID == id {
			return s
		}
	}
	return subscriber{}
}

func subIDs(subs []subscriber) []string {
	var out []string
	for _, s := range subs {
		out = append(out, s.ID)
	}
	return out
}

func chainsText(chs [][]calllog.Entry) string {
	var out []string
	for _, ch := range chs {
		out = append(out, "["+strings.Join(ids(ch), " ")+"]")
	}
	return strings.Join(out, " ")
}

// ---- reporting ----

// gherkin writes the case as a scenario of the step library.
func (c chainCase) gherkin(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  @HD-01 @must\n  Scenario: %s\n", name)
	b.WriteString("    Given a resource tool \"write\" from provider \"fs\"\n")
	b.WriteString("    And a policy rule \"allow-write\" that allows \"write\"\n")
	fmt.Fprintf(&b, "    And these hook subscribers at %q, in this order:\n", c.Point)
	b.WriteString("      | subscriber | mode | behaviour | timeout ms |\n")
	for _, s := range c.Subs {
		to := ""
		if s.TimeoutMS > 0 {
			to = fmt.Sprint(s.TimeoutMS)
		}
		fmt.Fprintf(&b, "      | %s | %s | %s | %s |\n", s.ID, s.Mode, s.Behaviour, to)
	}
	b.WriteString("    And the model answers request 1 with call write(path \"a\")\n")
	b.WriteString("    And the model answers request 2 with text \"Finished.\"\n")
	b.WriteString("    When the session runs\n")
	e := expect(c)
	if len(e.dispatched) > 0 {
		var q []string
		for _, s := range e.dispatched {
			q = append(q, fmt.Sprintf("%q", s.ID))
		}
		fmt.Fprintf(&b, "    Then the subscribers at %q were dispatched in this order: %s\n", c.Point, strings.Join(q, ", "))
	}
	return b.String()
}

func (c chainCase) String() string {
	var parts []string
	for _, s := range c.Subs {
		p := s.ID + ":" + s.Mode + "/" + s.Behaviour
		if s.TimeoutMS > 0 {
			p += fmt.Sprintf("(%dms)", s.TimeoutMS)
		}
		parts = append(parts, p)
	}
	return c.Point + " [" + strings.Join(parts, ", ") + "]"
}

var sessions atomic.Int64

// TestHookChainProperties runs random hook chains at random points through
// the reference kernel and checks the invariants of hook dispatch. rapid
// shrinks a failing case; it is printed as a scenario of the step library.
// More cases: -rapid.checks=N; replay: -rapid.seed=S.
func TestHookChainProperties(t *testing.T) {
	k := startKernel(t)
	rapid.Check(t, func(t *rapid.T) {
		c := chainCases.Draw(t, "chain")
		r, err := runCase(k, c, fmt.Sprintf("props-%d", sessions.Add(1)))
		if err != nil {
			t.Fatalf("%v\ncase: %s", err, c)
		}
		if bad := r.check(); len(bad) > 0 {
			t.Fatalf("case: %s\nbroken: %s\nas a scenario:\n%s", c, strings.Join(bad, "\n        "), c.gherkin("hook chain counterexample"))
		}
	})
}

// TestExpectationFold pins the model the property checks against.
func TestExpectationFold(t *testing.T) {
	c := chainCase{Point: wire.PointPreModelCall, Subs: []subscriber{
		{ID: "T1", Mode: wire.ModeTransform, Behaviour: `appends "A"`},
		{ID: "O1", Mode: wire.ModeObserve, Behaviour: "fails"},
		{ID: "T2", Mode: wire.ModeTransform, Behaviour: `appends "B"`},
		{ID: "V1", Mode: wire.ModeVeto, Behaviour: "hangs", TimeoutMS: 90},
		{ID: "O2", Mode: wire.ModeObserve, Behaviour: "answers"},
	}}
	e := expect(c)
	if got := subIDs(e.dispatched); !slices.Equal(got, []string{"T1", "O1", "T2", "V1"}) {
		t.Fatalf("dispatched %v", got)
	}
	if !e.denied || e.aborted || !slices.Equal(e.markers, []string{"A", "B"}) || !slices.Equal(e.inputs["T2"], []string{"A"}) ||
		e.hangs != 90*time.Millisecond || len(e.errors) != 1 || e.errors[0] != (wantError{"V1", wire.ModeVeto, wire.HookErrTimeout}) {
		t.Fatalf("expectation %+v", e)
	}
	c.Point = wire.PointPostApply // appending is a change where nothing is mutable
	if e := expect(c); !e.aborted || len(e.dispatched) != 1 {
		t.Fatalf("post-apply expectation %+v", e)
	}
	if !sameOrder(expect(c).dispatched, []string{"T1"}, true) || sameOrder([]subscriber{{ID: "A", Mode: wire.ModeVeto}, {ID: "B", Mode: wire.ModeVeto}}, []string{"B", "A"}, true) {
		t.Fatal("sameOrder")
	}
}
