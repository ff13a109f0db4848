package fakes

import (
	"context"
	"sync"

	"github.com/agentconform/conform/spec/wire"
)

// Permission scripts the frontend's answer for one tool's plan items.
type Permission struct {
	Decision string // ALLOW or DENY
	Scope    string
	Gate     *Gate
}

// Frontend is the fake user interface: it answers permission requests and
// interactive calls.
type Frontend struct {
	mu          sync.Mutex
	permissions map[string]Permission
	answers     map[string]string
	Default     Permission
}

func newFrontend() *Frontend {
	return &Frontend{permissions: map[string]Permission{}, answers: map[string]string{},
		Default: Permission{Decision: wire.DecisionAllow, Scope: wire.ScopeOnce}}
}

// SetPermission scripts the answer for items of a tool.
func (f *Frontend) SetPermission(tool string, p Permission) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.permissions[tool] = p
}

// SetAnswer scripts the answer to an interactive tool.
func (f *Frontend) SetAnswer(tool, answer string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[tool] = answer
}

func (f *Frontend) permission(ctx context.Context, done <-chan struct{}, p wire.PermissionParams) (wire.PermissionResult, error) {
	var res wire.PermissionResult
	for _, it := range p.Items {
		f.mu.Lock()
		perm, ok := f.permissions[it.Tool]
		f.mu.Unlock()
		if !ok {
			perm = f.Default
		}
		if perm.Gate != nil {
			if err := perm.Gate.Wait(ctx, done); err != nil {
				return res, err
			}
		}
		scope := perm.Scope
		if scope == "" {
			scope = wire.ScopeOnce
		}
		res.Decisions = append(res.Decisions, wire.PlanDecision{PlanItemID: it.ID, Decision: perm.Decision, Scope: scope})
	}
	return res, nil
}

func (f *Frontend) interactive(p wire.InteractiveParams) wire.InteractiveResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	if a, ok := f.answers[p.ToolName]; ok {
		return wire.InteractiveResult{Response: a}
	}
	return wire.InteractiveResult{Response: "answer to " + p.ToolName}
}
