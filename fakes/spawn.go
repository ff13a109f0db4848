package fakes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// KindHarness marks log entries for requests the harness itself sent the
// kernel (session/spawn). They are not kernel → harness traffic: checks of
// the kernel's requests (Kind == calllog.Request) never see them.
const KindHarness = "harness"

// Spawner is the harness's way back into the kernel. The driver binds it to
// a world when it registers the world's root session, so that a
// spawn-capable fake tool can call session/spawn while its tool/invoke is in
// flight, and a fake can cancel a session at a moment it chooses.
type Spawner interface {
	Spawn(ctx context.Context, p wire.SpawnParams) (wire.RunSessionResult, error)
	Cancel(ctx context.Context, session string) error
}

// Agents is the sub-agent side of a world: the spawn-capable tools, one
// model script per child profile, holds on child model requests, and a
// record of every spawn.
//
// A session is a child when its session_meta row names a parent; its model
// requests are answered from the script of the profile that row names
// (numbered per session, like the root's), never from World.Model.
type Agents struct {
	w *World

	mu     sync.Mutex
	kernel Spawner
	root   string
	tools  map[string]bool
	models map[string]*Model
	holds  map[string]*ModelHold
	spawns []Spawn
}

func newAgents(w *World) *Agents {
	return &Agents{w: w, tools: map[string]bool{}, models: map[string]*Model{}, holds: map[string]*ModelHold{}}
}

// Spawn is one session/spawn the fake tool sent, and its answer.
type Spawn struct {
	// Session is the session whose tool/invoke spawned (its call_context),
	// CallID that invoke's call id.
	Session string
	CallID  string
	Params  wire.SpawnParams
	// Claimed is set when the tool named a parent other than its own
	// session (the scenario asked it to, A-30); Stale when it named the
	// call id of an earlier call of its session instead of its own.
	Claimed  bool
	Stale    bool
	Seq      int // the log entry of the request
	Answered bool
	Result   wire.RunSessionResult
	Err      error
}

// Bind connects the world to the kernel that runs its root session.
func (a *Agents) Bind(k Spawner, root string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.kernel, a.root = k, root
}

// Root is the root session the world was bound to.
func (a *Agents) Root() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.root
}

// Cancel asks the kernel to cancel a session (asynchronously: it may be
// called from a fake that must not block).
func (a *Agents) Cancel(session string) {
	a.mu.Lock()
	k := a.kernel
	a.mu.Unlock()
	if k != nil {
		go func() { _ = k.Cancel(context.Background(), session) }()
	}
}

// SpawnCapable makes a tool's invoke call session/spawn. Its input names
// the profile and prompt; optional fields pass the caller's hints
// (remaining_depth, remaining_cost_budget_usd, scoped_providers as a comma
// list) and "parent" claims another parent session: "root" for the
// scenario's root, any other value as it is.
func (a *Agents) SpawnCapable(tool string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tools[tool] = true
}

func (a *Agents) spawnCapable(tool string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tools[tool]
}

// Model is the script of children of one profile.
func (a *Agents) Model(profile string) *Model {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, ok := a.models[profile]
	if !ok {
		m = newModel()
		a.models[profile] = m
	}
	return m
}

// Hold holds model request n of every child of a profile.
func (a *Agents) Hold(profile string, n int, h *ModelHold) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.holds[fmt.Sprintf("%s#%d", profile, n)] = h
}

// HoldOf is the hold on model request n of a profile's children, if any.
func (a *Agents) HoldOf(profile string, n int) *ModelHold {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.holds[fmt.Sprintf("%s#%d", profile, n)]
}

// Spawns are the spawns so far, in the order they were sent.
func (a *Agents) Spawns() []Spawn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Spawn(nil), a.spawns...)
}

// ProfileOf is the profile of a child session, from its session_meta row.
func (a *Agents) ProfileOf(session string) (profile string, child bool) {
	for _, m := range a.w.Metas() {
		if m.SessionID == session {
			return m.Profile, m.ParentSessionID != ""
		}
	}
	return "", false
}

// modelReply picks the answer to a model request: a child's from its
// profile's script (after any hold), the root's from World.Model.
func (w *World) modelReply(ctx context.Context, session, purpose string) (Reply, int, error) {
	profile, child := w.Agents.ProfileOf(session)
	if !child {
		r, n := w.Model.nextFor(session, purpose)
		return r, n, nil
	}
	r, n := w.Agents.Model(profile).nextFor(session, purpose)
	if h := w.Agents.HoldOf(profile, n); h != nil {
		if err := h.wait(ctx, w.done, session); err != nil {
			return r, n, err
		}
	}
	return r, n, nil
}

// spawnInput is what the model puts in a spawn-capable tool call.
type spawnInput struct {
	Profile        string   `json:"profile"`
	Prompt         string   `json:"prompt"`
	RemainingDepth *int     `json:"remaining_depth"`
	Budget         *float64 `json:"remaining_cost_budget_usd"`
	Scoped         string   `json:"scoped_providers"`
	Parent         string   `json:"parent"`
	// Call "previous" names the call id of the caller's previous spawn
	// (a call that has returned) instead of the caller's own.
	Call string `json:"call"`
	// Detach "yes" answers the tool/invoke as soon as the child has
	// started (its first session_meta row), without waiting for the
	// spawn's answer, which is still recorded when it comes (SA-04: the
	// parent must still outlast the child).
	Detach string `json:"detach"`
}

// invoke is a spawn-capable tool's tool/invoke: it calls session/spawn and
// answers with the child's status and final message only.
//
// The spawn deliberately outlives a cancelled invoke: when the kernel gives
// up on the tool call, the fake stops waiting but keeps the session/spawn
// open until the kernel answers it (or the scenario ends). Cancelling the
// child is the kernel's job, through its own live tree (SA-08); a harness
// that cancelled the spawn itself would do that job for it.
func (a *Agents) invoke(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
	var in spawnInput
	if err := json.Unmarshal(p.Input, &in); err != nil {
		return failed("the spawn tool's input is not an object: " + err.Error()), nil
	}
	sp := wire.SpawnParams{
		ParentSessionID: p.CallContext.SessionID, CallID: p.CallID, Profile: in.Profile, Prompt: in.Prompt,
		RemainingDepth: in.RemainingDepth, RemainingCostBudgetUSD: in.Budget,
	}
	if in.Scoped != "" {
		sp.ScopedProviders = strings.Split(in.Scoped, ",")
	}
	switch in.Parent {
	case "":
	case "root":
		sp.ParentSessionID = a.Root()
	default:
		sp.ParentSessionID = in.Parent
	}
	if in.Call == "previous" {
		a.mu.Lock()
		for _, old := range a.spawns {
			if old.Session == p.CallContext.SessionID {
				sp.CallID = old.CallID
			}
		}
		a.mu.Unlock()
	}
	children := a.childrenOf(p.CallContext.SessionID)
	a.mu.Lock()
	k := a.kernel
	a.mu.Unlock()
	if k == nil {
		return failed("this harness has no kernel to spawn in"), nil
	}
	raw, _ := json.Marshal(sp)
	e := a.w.Log.Begin(KindHarness, wire.MethodSessionSpawn, p.CallContext.SessionID, p.CallContext.TurnID,
		"harness spawns "+sp.Profile, raw, sp)
	a.mu.Lock()
	i := len(a.spawns)
	a.spawns = append(a.spawns, Spawn{Session: p.CallContext.SessionID, CallID: p.CallID, Params: sp, Claimed: in.Parent != "", Stale: sp.CallID != p.CallID, Seq: e.Seq})
	a.mu.Unlock()

	answered := make(chan Spawn, 1)
	go func() {
		sctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-a.w.done:
				cancel()
			case <-sctx.Done():
			}
		}()
		res, err := k.Spawn(sctx, sp)
		a.w.Log.Finish(e, res, err)
		a.mu.Lock()
		s := &a.spawns[i]
		s.Answered, s.Result, s.Err = true, res, err
		rec := *s
		a.mu.Unlock()
		answered <- rec
	}()
	if in.Detach == "yes" {
		return a.detached(ctx, p.CallContext.SessionID, children, answered)
	}
	select {
	case s := <-answered:
		if ctx.Err() != nil {
			// The kernel gave up on the call before the child's answer
			// came (its $/cancelRequest is read before the spawn's answer,
			// which follows it on the same stream): the call stays
			// cancelled, whichever of the two this select saw first.
			return wire.ToolInvokeResult{}, ctx.Err()
		}
		if s.Err != nil {
			return failed("session/spawn failed: " + s.Err.Error()), nil
		}
		out, _ := json.Marshal(map[string]any{
			"child_session_id": s.Result.SessionID, "status": s.Result.Status, "final_message": MessageText(s.Result.FinalMessage),
		})
		return wire.ToolInvokeResult{Output: out}, nil
	case <-ctx.Done():
		return wire.ToolInvokeResult{}, ctx.Err()
	case <-a.w.done:
		return wire.ToolInvokeResult{}, errHeld
	}
}

func failed(msg string) wire.ToolInvokeResult {
	out, _ := json.Marshal(msg)
	return wire.ToolInvokeResult{Output: out, IsError: true, ErrorCategory: wire.ToolErrExecutionFailed}
}

// MessageText is the text of a message's text blocks.
func MessageText(m *wire.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range m.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// ModelHold keeps a child profile's model requests waiting, to prove what
// the kernel does meanwhile. Once it opens, every waiting request goes on
// and later ones pass at once. It opens
//   - when Early reports true (polled; the proof a kernel moved on while the
//     request was held),
//   - when more than N requests wait at once (a cap was exceeded),
//   - once N requests have waited together for Grace (N ≤ 0: once the first
//     has waited Grace), the grace window in which nothing else may start,
//   - or Timeout after the first arrival, when N never wait together.
//
// OnArrive, when set, is told of every arrival (it must not block).
type ModelHold struct {
	N        int
	Grace    time.Duration
	Timeout  time.Duration
	Early    func() bool
	OnArrive func(session string)

	mu       sync.Mutex
	waiting  int
	first    time.Time
	full     time.Time
	open     bool
	timedOut bool
}

// TimedOut reports whether the hold opened only because N requests never
// waited together.
func (h *ModelHold) TimedOut() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.timedOut
}

func (h *ModelHold) wait(ctx context.Context, done <-chan struct{}, session string) error {
	h.mu.Lock()
	if h.open {
		h.mu.Unlock()
		return nil
	}
	now := time.Now()
	if h.first.IsZero() {
		h.first = now
	}
	h.waiting++
	if h.N > 0 && h.waiting >= h.N && h.full.IsZero() {
		h.full = now
	}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.waiting--
		h.mu.Unlock()
	}()
	if h.OnArrive != nil {
		h.OnArrive(session)
	}
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for !h.opened() {
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		case <-done:
			return errHeld
		}
	}
	return nil
}

func (h *ModelHold) opened() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open {
		return true
	}
	since := func(t time.Time) time.Duration { return time.Since(t) }
	switch {
	case h.Early != nil && h.Early():
	case h.N > 0 && h.waiting > h.N:
	case h.N > 0 && !h.full.IsZero() && since(h.full) >= h.Grace:
	case h.N <= 0 && since(h.first) >= h.Grace:
	case h.Timeout > 0 && since(h.first) >= h.Timeout:
		h.timedOut = true
	default:
		return false
	}
	h.open = true
	return true
}

// childrenOf counts the sessions whose session_meta rows name parent.
func (a *Agents) childrenOf(parent string) int {
	seen := map[string]bool{}
	for _, m := range a.w.Metas() {
		if m.ParentSessionID == parent {
			seen[m.SessionID] = true
		}
	}
	return len(seen)
}

// detached answers a spawn tool's invoke once a new child of the caller
// has a session_meta row (or the spawn was answered first, or the call
// or scenario ended), leaving the spawn open.
func (a *Agents) detached(ctx context.Context, session string, before int, answered <-chan Spawn) (wire.ToolInvokeResult, error) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case s := <-answered:
			if s.Err != nil {
				return failed("session/spawn failed: " + s.Err.Error()), nil
			}
			out, _ := json.Marshal(map[string]any{"child_session_id": s.Result.SessionID, "status": s.Result.Status})
			return wire.ToolInvokeResult{Output: out}, nil
		case <-ctx.Done():
			return wire.ToolInvokeResult{}, ctx.Err()
		case <-a.w.done:
			return wire.ToolInvokeResult{}, errHeld
		case <-tick.C:
			if a.childrenOf(session) > before {
				out, _ := json.Marshal(map[string]any{"status": "started"})
				return wire.ToolInvokeResult{Output: out}, nil
			}
		}
	}
}
