package fakes

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// Permission scripts the frontend's answer for one plan item of a tool.
type Permission struct {
	Decision string // ALLOW or DENY
	Scope    string // default ONCE
	// CorrectedInput, when set, goes with the decision as corrected_input.
	CorrectedInput json.RawMessage
	// Gate, when set, holds the answer until the gate is opened.
	Gate *Gate
	// Hold delays the answer this long: the human "thinks". A request with
	// several items waits for the longest hold among them, once.
	Hold time.Duration
	// Before, when set, runs first for the item (before Gate and Hold): the
	// scenario acts while the request is pending, e.g. a second frontend
	// connection decides the item (decide.go). An error answers the
	// request with that error.
	Before func(ctx context.Context, done <-chan struct{}, cc wire.CallContext, it wire.PlanItem) error
	// Fail, when set, answers the whole request with a JSON-RPC error
	// carrying this message: the frontend could not ask the human (PA-03).
	Fail string
	// Omit leaves the item's decision out of the answer, which decides the
	// request's other items only (PA-03).
	Omit bool
}

// Interactive scripts the frontend's answer to an interactive tool.
type Interactive struct {
	Answer string
	// Hold keeps the request unanswered this long: the grace window of a
	// non-overlap check.
	Hold time.Duration
	// Fail, when set, answers the request with a JSON-RPC error carrying
	// this message instead (ER-11).
	Fail string
	// Before, when set, runs first while the request is pending: the
	// scenario acts meanwhile, e.g. a second frontend connection answers
	// the call (decide.go). An error answers the request with that error.
	Before func(ctx context.Context, done <-chan struct{}, p wire.InteractiveParams) error
}

// Frontend is the fake user interface: it answers permission requests and
// interactive calls.
type Frontend struct {
	mu          sync.Mutex
	permissions map[string][]Permission // per tool: answers in order, the last repeats
	used        map[string]int
	answers     map[string]Interactive
	Default     Permission
	sent        []*sentDecide // frontend/decide of other connections (decide.go)
}

func newFrontend() *Frontend {
	return &Frontend{permissions: map[string][]Permission{}, used: map[string]int{}, answers: map[string]Interactive{},
		Default: Permission{Decision: wire.DecisionAllow, Scope: wire.ScopeOnce}}
}

// SetPermission scripts the answer for every item of a tool.
func (f *Frontend) SetPermission(tool string, p Permission) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.permissions[tool] = []Permission{p}
	f.used[tool] = 0
}

// AddPermission scripts the answer for the next item of a tool after those
// scripted so far; the last scripted answer repeats.
func (f *Frontend) AddPermission(tool string, p Permission) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.permissions[tool] = append(f.permissions[tool], p)
}

// SetAnswer scripts the answer to an interactive tool.
func (f *Frontend) SetAnswer(tool, answer string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	in := f.answers[tool]
	in.Answer = answer
	f.answers[tool] = in
}

// SetInteractive scripts an interactive tool's answer and hold.
func (f *Frontend) SetInteractive(tool string, in Interactive) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[tool] = in
}

// next picks the scripted answer for one item of a tool.
func (f *Frontend) next(tool string) Permission {
	f.mu.Lock()
	defer f.mu.Unlock()
	ps := f.permissions[tool]
	if len(ps) == 0 {
		return f.Default
	}
	i := min(f.used[tool], len(ps)-1)
	f.used[tool]++
	return ps[i]
}

func (f *Frontend) permission(ctx context.Context, done <-chan struct{}, p wire.PermissionParams) (wire.PermissionResult, error) {
	res := wire.PermissionResult{Decisions: []wire.PlanDecision{}}
	var longest time.Duration
	for _, it := range p.Items {
		perm := f.next(it.Tool)
		if perm.Before != nil {
			if err := perm.Before(ctx, done, p.CallContext, it); err != nil {
				return res, err
			}
		}
		if perm.Gate != nil {
			if err := perm.Gate.Wait(ctx, done); err != nil {
				return res, err
			}
		}
		if perm.Fail != "" {
			return res, &jsonrpc.Error{Code: wire.CodeInternal, Message: perm.Fail}
		}
		longest = max(longest, perm.Hold)
		if perm.Omit {
			continue
		}
		scope := perm.Scope
		if scope == "" {
			scope = wire.ScopeOnce
		}
		res.Decisions = append(res.Decisions, wire.PlanDecision{
			PlanItemID: it.ID, Decision: perm.Decision, Scope: scope, CorrectedInput: perm.CorrectedInput,
		})
	}
	if err := holdFor(ctx, done, longest); err != nil {
		return res, err
	}
	return res, nil
}

func (f *Frontend) interactive(ctx context.Context, done <-chan struct{}, p wire.InteractiveParams) (wire.InteractiveResult, error) {
	f.mu.Lock()
	in, ok := f.answers[p.ToolName]
	f.mu.Unlock()
	if in.Before != nil {
		if err := in.Before(ctx, done, p); err != nil {
			return wire.InteractiveResult{}, err
		}
	}
	if err := holdFor(ctx, done, in.Hold); err != nil {
		return wire.InteractiveResult{}, err
	}
	if in.Fail != "" {
		return wire.InteractiveResult{}, &jsonrpc.Error{Code: wire.CodeInternal, Message: in.Fail}
	}
	if ok && in.Answer != "" {
		return wire.InteractiveResult{Response: in.Answer}, nil
	}
	return wire.InteractiveResult{Response: "answer to " + p.ToolName}, nil
}
