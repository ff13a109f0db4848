package subagent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/spec/wire"
)

// Errors of Root and Spawn besides *SpawnError.
var (
	ErrUnknownSession = errors.New("unknown session")
	ErrDuplicate      = errors.New("a session with this id is already running")
	// ErrCancelled is a queued spawn whose parent (or caller) went away
	// before the child could start; no session was created for it.
	ErrCancelled = errors.New("the spawn was cancelled before the child started")
)

// SpawnError is a spawn the kernel refuses: the caller is not an in-flight
// spawn-capable tool call of the named parent, the profile is unknown, or
// the parent has no depth budget left.
type SpawnError struct{ Reason string }

func (e *SpawnError) Error() string { return "spawn refused: " + e.Reason }

// Tree is the kernel's set of live sessions. It is safe for concurrent use.
type Tree struct {
	policy Policy

	// mu guards nodes and ended, and every node's spending, so that one
	// usage is debited from a whole ancestor chain at once.
	mu    sync.Mutex
	nodes map[string]*Node
	ended map[string]bool
}

// NewTree makes an empty tree; a nil policy is the Standard one.
func NewTree(p Policy) *Tree {
	if p == nil {
		p = Standard{}
	}
	return &Tree{policy: p, nodes: map[string]*Node{}, ended: map[string]bool{}}
}

// Policy is the tree's policy.
func (t *Tree) Policy() Policy { return t.policy }

// Node is one live session.
type Node struct {
	tree           *Tree
	ID             string
	Parent         *Node // nil for a root
	Profile        string
	Depth          int      // depth in the tree, the root 0
	RemainingDepth int      // the depth budget
	Budget         *float64 // the cost budget of the subtree; nil: unlimited
	// Config is the session's own config: its tool registry and bounds.
	Config wire.SessionConfig

	all   []wire.ToolSchema // every tool of the root's config
	sub   *wire.Subagents   // the root's sub-agent settings
	start []wire.Message    // a child's first history
	slots chan struct{}     // one per running child
	seq   atomic.Int64      // child ids

	// A child's context comes from its parent's at spawn time (runCtx,
	// stop); every session's running context is set by Attach.
	runCtx context.Context
	stop   context.CancelFunc

	// guarded by tree.mu
	spent   float64
	in, out int64

	mu        sync.Mutex
	cond      *sync.Cond
	ctx       context.Context
	cancel    context.CancelFunc
	cancelled bool
	children  int
	spawned   int // children ever started
	closing   bool
	inflight  map[string]string // call id → tool name
	history   []wire.Message
	returned  []wire.Message
	endOnce   sync.Once
}

func (t *Tree) newNode(id string, parent *Node, cfg wire.SessionConfig, depth, remaining int, budget *float64) *Node {
	n := &Node{
		tree: t, ID: id, Parent: parent, Profile: cfg.Profile, Depth: depth,
		RemainingDepth: remaining, Budget: budget, Config: cfg,
		inflight: map[string]string{},
	}
	n.cond = sync.NewCond(&n.mu)
	return n
}

func (t *Tree) insert(n *Node) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.nodes[n.ID]; ok {
		return ErrDuplicate
	}
	t.nodes[n.ID] = n
	delete(t.ended, n.ID)
	return nil
}

// Root adds a root session with its depth budget, its cost budget
// (max_cost_usd) and its tool registry.
func (t *Tree) Root(id string, cfg wire.SessionConfig) (*Node, error) {
	depth := t.policy.RootDepth(cfg.Subagents)
	var budget *float64
	if cfg.Bounds.MaxCostUSD != nil {
		b := *cfg.Bounds.MaxCostUSD
		budget = &b
	}
	own := cfg
	own.Tools = t.policy.Tools(cfg.Tools, nil, nil, depth)
	n := t.newNode(id, nil, own, 0, depth, budget)
	n.all, n.sub = cfg.Tools, cfg.Subagents
	n.slots = make(chan struct{}, t.policy.MaxConcurrent(cfg.Subagents))
	if err := t.insert(n); err != nil {
		return nil, err
	}
	return n, nil
}

// Lookup finds a live session.
func (t *Tree) Lookup(id string) (*Node, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.nodes[id]
	return n, ok
}

// Cancel cancels a live session and with it every descendant. It reports
// whether the session is live, and whether it has ended.
func (t *Tree) Cancel(id string) (live, ended bool) {
	t.mu.Lock()
	n, ok := t.nodes[id]
	ended = t.ended[id]
	t.mu.Unlock()
	if ok {
		n.Cancel()
	}
	return ok, ended
}

// Live is the number of live sessions.
func (t *Tree) Live() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.nodes)
}

// Spawn creates a child of p.ParentSessionID once one of the parent's slots
// is free. The caller runs the child under Context and must End it.
func (t *Tree) Spawn(ctx context.Context, p wire.SpawnParams) (*Node, error) {
	parent, ok := t.Lookup(p.ParentSessionID)
	if !ok {
		return nil, ErrUnknownSession
	}
	if !t.policy.Caller(parent, p.CallID) {
		return nil, &SpawnError{fmt.Sprintf("call %q is not a spawn-capable tool call of session %q in flight", p.CallID, p.ParentSessionID)}
	}
	i := slices.IndexFunc(parent.profiles(), func(c wire.ChildProfile) bool { return c.Name == p.Profile })
	if i < 0 {
		return nil, &SpawnError{fmt.Sprintf("no sub-agent profile %q", p.Profile)}
	}
	prof := parent.profiles()[i]
	if parent.RemainingDepth <= 0 {
		return nil, &SpawnError{fmt.Sprintf("session %q has no depth budget left", parent.ID)}
	}
	// Beyond the cap, spawns queue here (SA-03).
	select {
	case parent.slots <- struct{}{}:
	case <-parent.context().Done():
		return nil, ErrCancelled
	case <-ctx.Done():
		return nil, ErrCancelled
	}
	if !parent.addChild() {
		<-parent.slots
		return nil, ErrCancelled
	}
	// Budgets are computed when the child really starts.
	depth := t.policy.ChildDepth(parent.RemainingDepth, prof, p.RemainingDepth)
	budget := t.policy.ChildBudget(parent.Remainder(), prof, p.RemainingCostBudgetUSD)
	if budget != nil && *budget < 0 {
		zero := 0.0 // an overspent parent's child fires at its first step 17
		budget = &zero
	}
	cfg := parent.Config
	cfg.Profile = prof.Name
	cfg.Tools = t.policy.Tools(parent.all, &prof, p.ScopedProviders, depth)
	cfg.Bounds.MaxCostUSD = budget
	if prof.MaxTurns != nil {
		cfg.Bounds.MaxTurns = prof.MaxTurns
	}
	child := t.newNode(fmt.Sprintf("%s/c%d", parent.ID, parent.seq.Add(1)), parent, cfg, parent.Depth+1, depth, budget)
	child.all, child.sub = parent.all, parent.sub
	child.slots = make(chan struct{}, t.policy.MaxConcurrent(parent.sub))
	child.start = t.policy.History(parent, prof, p.Prompt)
	child.runCtx, child.stop = t.policy.ChildContext(parent.context(), child)
	if err := t.insert(child); err != nil {
		child.stop()
		<-parent.slots
		parent.childDone()
		return nil, err
	}
	return child, nil
}

func (n *Node) profiles() []wire.ChildProfile {
	if n.sub == nil {
		return nil
	}
	return n.sub.Profiles
}

// Context is the context a child was given at spawn; a root has none of its
// own and runs under its caller's.
func (n *Node) Context() context.Context {
	if n.runCtx == nil {
		return context.Background()
	}
	return n.runCtx
}

// Attach makes ctx the session's running context: cancelling the session
// cancels it. A Cancel that came first takes effect at once.
func (n *Node) Attach(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ctx, n.cancel = ctx, cancel
	if n.cancelled {
		cancel()
	}
	return ctx
}

// context is the running context, once attached.
func (n *Node) context() context.Context {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ctx == nil {
		return n.Context()
	}
	return n.ctx
}

// Cancel cancels the session and, through its context, its subtree.
func (n *Node) Cancel() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.cancelled = true
	if n.cancel != nil {
		n.cancel()
	}
}

func (n *Node) addChild() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closing {
		return false
	}
	n.children++
	n.spawned++
	return true
}

// Spawned is how many children the session has started so far.
func (n *Node) Spawned() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.spawned
}

func (n *Node) childDone() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.children--
	if n.children == 0 {
		n.cond.Broadcast()
	}
}

// Wait takes no new children and waits until every live child has ended,
// so that no descendant outlives the session (SA-08).
func (n *Node) Wait() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closing = true
	for n.children > 0 {
		n.cond.Wait()
	}
}

// End removes the session from the live tree, hands what the policy lets
// cross back of its final history to its parent, and frees the parent's
// slot. It may be called more than once.
func (n *Node) End(history []wire.Message) {
	n.endOnce.Do(func() {
		t := n.tree
		t.mu.Lock()
		delete(t.nodes, n.ID)
		t.ended[n.ID] = true
		t.mu.Unlock()
		n.mu.Lock()
		n.closing = true
		if n.cancel != nil {
			n.cancel()
		}
		n.mu.Unlock()
		if n.stop != nil {
			n.stop()
		}
		if p := n.Parent; p != nil {
			p.Return(t.policy.Returned(p, history))
			<-p.slots
			p.childDone()
		}
	})
}

// Charge debits one usage from every payer at once (TA-07).
func (n *Node) Charge(usd float64, in, out int64) {
	payers := n.tree.policy.Payers(n)
	t := n.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range payers {
		p.spent += usd
		p.in += in
		p.out += out
	}
}

// Spent is what the session and its descendants have spent so far.
func (n *Node) Spent() float64 {
	n.tree.mu.Lock()
	defer n.tree.mu.Unlock()
	return n.spent
}

// Tokens are the input and output tokens of the session and its
// descendants, as the session reports them (TokenReporter).
func (n *Node) Tokens() (in, out int64) {
	n.tree.mu.Lock()
	in, out = n.in, n.out
	n.tree.mu.Unlock()
	if r, ok := n.tree.policy.(TokenReporter); ok {
		return r.ReportTokens(n, in, out)
	}
	return in, out
}

// TokenReporter is an optional Policy extension that turns a session's
// token totals into the ones it reports. The Standard policy has none: a
// session reports the totals of its whole subtree (SA-11). It exists so
// that a variant or mutant can change that one decision.
type TokenReporter interface {
	ReportTokens(n *Node, in, out int64) (int64, int64)
}

// Remainder is the budget left (nil: unlimited); negative once overspent.
func (n *Node) Remainder() *float64 {
	if n.Budget == nil {
		return nil
	}
	r := *n.Budget - n.Spent()
	return &r
}

// StartHistory is the session's first history: a child's as computed at
// spawn, a root's its prompt.
func (n *Node) StartHistory(prompt string) []wire.Message {
	if n.start != nil {
		return slices.Clone(n.start)
	}
	return []wire.Message{UserText(prompt)}
}

// Sync publishes the session's history at the start of a turn (what a
// forked child would see) and returns it with whatever joined children
// handed back besides their tool results (nothing, in the reference).
func (n *Node) Sync(history []wire.Message) []wire.Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	history = append(history, n.returned...)
	n.returned = nil
	n.history = slices.Clone(history)
	return history
}

// History is the history the session published last.
func (n *Node) History() []wire.Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.history)
}

// Return hands a finished child's extra messages to this session.
func (n *Node) Return(msgs []wire.Message) {
	if len(msgs) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.returned = append(n.returned, msgs...)
}

// InFlight reports the tool of a tool/invoke of this session that is in
// flight.
func (n *Node) InFlight(callID string) (wire.ToolSchema, bool) {
	n.mu.Lock()
	name, ok := n.inflight[callID]
	n.mu.Unlock()
	if !ok {
		return wire.ToolSchema{}, false
	}
	i := slices.IndexFunc(n.Config.Tools, func(t wire.ToolSchema) bool { return t.Name == name })
	if i < 0 {
		return wire.ToolSchema{}, false
	}
	return n.Config.Tools[i], true
}

// Row completes a session_meta row with the tree's view of the session and
// passes it through the policy; nil means no row is reported.
func (n *Node) Row(m wire.SessionMeta) *wire.SessionMeta {
	if n.Parent != nil {
		m.ParentSessionID = n.Parent.ID
	}
	m.Depth = n.Depth
	d := n.RemainingDepth
	m.RemainingDepth = &d
	m.RemainingCostBudgetUSD = n.Remainder()
	return n.tree.policy.Row(n, m)
}

// EndStatus is the status the session reports for how it ended.
func (n *Node) EndStatus(status string) string { return n.tree.policy.EndStatus(n, status) }

// Track wraps the session's host so that the tree knows which tool calls
// are in flight, the proof a spawn comes from the session it names.
func (n *Node) Track(h host.Host) host.Host { return tracked{h, n} }

type tracked struct {
	host.Host
	n *Node
}

func (t tracked) Invoke(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
	t.n.mu.Lock()
	t.n.inflight[p.CallID] = p.Tool
	t.n.mu.Unlock()
	defer func() {
		t.n.mu.Lock()
		delete(t.n.inflight, p.CallID)
		t.n.mu.Unlock()
	}()
	return t.Host.Invoke(t.scope(ctx), p)
}

func (t tracked) Stream(ctx context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
	return t.Host.Stream(t.scope(ctx), p)
}

// scope is the context a model or tool call runs under: the session's own
// unless the policy says otherwise (CallScoper).
func (t tracked) scope(ctx context.Context) context.Context {
	if c, ok := t.n.tree.policy.(CallScoper); ok {
		return c.CallContext(t.n, ctx)
	}
	return ctx
}

// CallScoper is an optional Policy extension that chooses the context a
// session's model and tool calls run under. The Standard policy has none:
// a call runs under its session's context, so cancelling a session
// cancels its calls in flight, and with them the whole subtree's (SA-08).
// It exists so that a variant or mutant can change that one decision.
type CallScoper interface {
	CallContext(n *Node, ctx context.Context) context.Context
}
