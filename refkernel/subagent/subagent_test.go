package subagent

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

func ptr[T any](v T) *T { return &v }

func TestChildDepthOnlyShrinks(t *testing.T) {
	s := Standard{}
	cases := []struct {
		parent int
		prof   *int
		hint   *int
		want   int
	}{
		{1, nil, nil, 0},
		{2, ptr(5), nil, 1}, // the ancestor's budget wins (§3.7)
		{3, ptr(1), nil, 1}, // the profile's cap wins
		{3, nil, ptr(9), 2}, // a larger hint is ignored (SA-10)
		{3, nil, ptr(0), 0}, // a smaller hint is taken
		{0, nil, nil, -1},   // no budget left: below zero, still no spawn tool
		{4, ptr(0), ptr(2), 0},
	}
	for _, c := range cases {
		if got := s.ChildDepth(c.parent, wire.ChildProfile{MaxDepth: c.prof}, c.hint); got != c.want {
			t.Errorf("ChildDepth(%d, %v, %v) = %d, want %d", c.parent, c.prof, c.hint, got, c.want)
		}
	}
	if s.RootDepth(nil) != DefaultMaxDepth || s.RootDepth(&wire.Subagents{MaxDepth: 3}) != 3 {
		t.Error("RootDepth")
	}
}

func TestChildBudgetIsTheMinimum(t *testing.T) {
	s := Standard{}
	cases := []struct {
		rem, cap, hint *float64
		want           *float64
	}{
		{nil, nil, nil, nil},
		{ptr(0.85), nil, nil, ptr(0.85)},
		{ptr(0.85), ptr(0.5), nil, ptr(0.5)},
		{nil, ptr(0.5), nil, ptr(0.5)},
		{ptr(0.85), nil, ptr(100.0), ptr(0.85)},
		{ptr(0.85), ptr(0.5), ptr(0.2), ptr(0.2)},
	}
	for _, c := range cases {
		got := s.ChildBudget(c.rem, wire.ChildProfile{MaxCostUSD: c.cap}, c.hint)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("ChildBudget(%v, %v, %v) = %v, want %v", c.rem, c.cap, c.hint, got, c.want)
		}
	}
}

func names(ts []wire.ToolSchema) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestToolScoping(t *testing.T) {
	all := []wire.ToolSchema{
		{Provider: "web", Name: "search"},
		{Provider: "fs", Name: "write"},
		{Provider: "agents", Name: "spawn", SpawnCapable: true},
		{Provider: "extra", Name: "lookup"},
	}
	s := Standard{}
	cases := []struct {
		name   string
		prof   *wire.ChildProfile
		scoped []string
		depth  int
		want   []string
	}{
		{"root keeps every tool", nil, nil, 1, []string{"search", "write", "spawn", "lookup"}},
		{"root at depth 0 loses the spawn tool", nil, nil, 0, []string{"search", "write", "lookup"}},
		{"child gets its profile's tools", &wire.ChildProfile{Tools: []string{"search"}}, nil, 3, []string{"search"}},
		{"a profile without tools gets none", &wire.ChildProfile{Tools: []string{}}, nil, 3, nil},
		{"recursion only when listed", &wire.ChildProfile{Tools: []string{"search", "spawn"}}, nil, 1, []string{"search", "spawn"}},
		{"listed spawn tool removed at depth 0", &wire.ChildProfile{Tools: []string{"search", "spawn"}}, nil, 0, []string{"search"}},
		{"scoped providers narrow", &wire.ChildProfile{Tools: []string{"search", "write"}}, []string{"web"}, 1, []string{"search"}},
		{"scoped providers never widen", &wire.ChildProfile{Tools: []string{"search"}}, []string{"web", "extra"}, 1, []string{"search"}},
	}
	for _, c := range cases {
		if got := names(s.Tools(all, c.prof, c.scoped, c.depth)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tools := []wire.ToolSchema{{Name: "search"}}
	ok := wire.SessionConfig{Tools: tools, Subagents: &wire.Subagents{Profiles: []wire.ChildProfile{{Name: "a", Tools: []string{"search"}}}}}
	if err := Validate(ok); err != nil {
		t.Fatal(err)
	}
	bad := []*wire.Subagents{
		{Profiles: []wire.ChildProfile{{Name: ""}}},
		{Profiles: []wire.ChildProfile{{Name: "a"}, {Name: "a"}}},
		{Profiles: []wire.ChildProfile{{Name: "a", Tools: []string{"nope"}}}},
		{Profiles: []wire.ChildProfile{{Name: "a", MaxTurns: ptr(0)}}},
	}
	for i, sa := range bad {
		if Validate(wire.SessionConfig{Tools: tools, Subagents: sa}) == nil {
			t.Errorf("bad config %d accepted", i)
		}
	}
}

// inFlight marks a call of a session as an in-flight tool/invoke, as the
// tracked host does.
func inFlight(n *Node, callID, tool string) func() {
	n.mu.Lock()
	n.inflight[callID] = tool
	n.mu.Unlock()
	return func() {
		n.mu.Lock()
		delete(n.inflight, callID)
		n.mu.Unlock()
	}
}

func rootConfig() wire.SessionConfig {
	return wire.SessionConfig{
		Profile: "root",
		Bounds:  wire.Bounds{MaxCostUSD: ptr(1.0)},
		Tools:   []wire.ToolSchema{{Provider: "agents", Name: "spawn", SpawnCapable: true}, {Provider: "web", Name: "search"}},
		Subagents: &wire.Subagents{MaxConcurrent: 1, MaxDepth: 2, Profiles: []wire.ChildProfile{
			{Name: "worker", Tools: []string{"search", "spawn"}, MaxCostUSD: ptr(0.5)},
		}},
	}
}

func TestSpawnRefusals(t *testing.T) {
	tr := NewTree(nil)
	root, err := tr.Root("r", rootConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := root.Attach(context.Background())
	_ = ctx
	if _, err := tr.Root("r", rootConfig()); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate root: %v", err)
	}
	sp := wire.SpawnParams{ParentSessionID: "r", CallID: "c1", Profile: "worker", Prompt: "p"}
	var se *SpawnError
	if _, err := tr.Spawn(context.Background(), sp); !errors.As(err, &se) {
		t.Fatalf("a call that is not in flight: %v", err)
	}
	done := inFlight(root, "c2", "search")
	if _, err := tr.Spawn(context.Background(), wire.SpawnParams{ParentSessionID: "r", CallID: "c2", Profile: "worker"}); !errors.As(err, &se) {
		t.Fatalf("a call of a tool that is not spawn-capable: %v", err)
	}
	done()
	defer inFlight(root, "c1", "spawn")()
	bad := sp
	bad.Profile = "nobody"
	if _, err := tr.Spawn(context.Background(), bad); !errors.As(err, &se) {
		t.Fatalf("unknown profile: %v", err)
	}
	bad = sp
	bad.ParentSessionID = "nobody"
	if _, err := tr.Spawn(context.Background(), bad); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("unknown parent: %v", err)
	}
	child, err := tr.Spawn(context.Background(), sp)
	if err != nil {
		t.Fatal(err)
	}
	if child.Parent != root || child.Depth != 1 || child.RemainingDepth != 1 || *child.Budget != 0.5 {
		t.Fatalf("child %+v", child)
	}
	// The cap is 1: a second spawn queues until the first child ends.
	got := make(chan error, 1)
	go func() {
		c, err := tr.Spawn(context.Background(), sp)
		if err == nil {
			c.End(nil)
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("the second spawn did not queue: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	child.End(nil)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// A queued spawn whose caller gives up is cancelled.
	c2, err := tr.Spawn(context.Background(), sp)
	if err != nil {
		t.Fatal(err)
	}
	qctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := tr.Spawn(qctx, sp); !errors.Is(err, ErrCancelled) {
		t.Fatalf("a queued spawn whose caller gave up: %v", err)
	}
	c2.End(nil)
}

func TestChargeRollsUpAndCancelCascades(t *testing.T) {
	tr := NewTree(nil)
	root, _ := tr.Root("r", rootConfig())
	rctx := root.Attach(context.Background())
	defer inFlight(root, "c1", "spawn")()
	child, err := tr.Spawn(context.Background(), wire.SpawnParams{ParentSessionID: "r", CallID: "c1", Profile: "worker"})
	if err != nil {
		t.Fatal(err)
	}
	cctx := child.Attach(child.Context())
	defer inFlight(child, "c9", "spawn")()
	grand, err := tr.Spawn(context.Background(), wire.SpawnParams{ParentSessionID: child.ID, CallID: "c9", Profile: "worker", Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	gctx := grand.Attach(grand.Context())
	grand.Charge(0.25, 100, 10)
	child.Charge(0.1, 1, 1)
	root.Charge(0.05, 1, 1)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(root.Spent(), 0.4) || !near(child.Spent(), 0.35) || !near(grand.Spent(), 0.25) {
		t.Fatalf("spent root %v child %v grand %v", root.Spent(), child.Spent(), grand.Spent())
	}
	if in, out := root.Tokens(); in != 102 || out != 12 {
		t.Fatalf("root tokens %d %d", in, out)
	}
	// The grandchild's budget was fixed at spawn: min(child's 0.5, cap 0.5).
	if r := grand.Remainder(); !near(*r, 0.25) {
		t.Fatalf("grandchild remainder %v", *r)
	}
	if live, _ := tr.Cancel("r"); !live {
		t.Fatal("root not live")
	}
	for name, ctx := range map[string]context.Context{"root": rctx, "child": cctx, "grandchild": gctx} {
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
			t.Fatalf("%s not cancelled", name)
		}
	}
	waited := make(chan struct{})
	go func() { root.Wait(); close(waited) }()
	grand.End(nil)
	child.Wait()
	child.End(nil)
	<-waited
	root.End(nil)
	if tr.Live() != 0 {
		t.Fatalf("%d sessions still live", tr.Live())
	}
	if live, ended := tr.Cancel(grand.ID); live || !ended {
		t.Fatal("an ended session should be known as ended")
	}
}
