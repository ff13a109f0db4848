package loop

import (
	"context"
	"sync"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
)

// Tool-error recovery (ER-04, ER-09, ER-10, ER-11, ER-12): what becomes of
// a call whose invoke failed, crashed, answered a retryable error or broke
// its output_schema. The decisions are the ToolErrs part's; this file only
// carries them out.

// invokeTool runs one call's tool/invoke, retrying a retryable error only
// where the ToolErrs part allows it (ER-11), and returns the call's result.
func (t *Turn) invokeTool(ctx context.Context, c *Call) *wire.ToolResult {
	s := t.Session
	for attempt := 1; ; attempt++ {
		res, err := s.host.Invoke(ctx, wire.ToolInvokeParams{
			CallContext: t.CallContext, CallID: c.Use.ID, Provider: c.Schema.Provider,
			Tool: c.Use.Name, Input: c.Input, Attempt: attempt,
		})
		c.Executed = true
		if err == nil && res.IsError && res.Retryable && ctx.Err() == nil && s.parts.ToolErrs.Retry(*c.Schema, attempt) {
			continue
		}
		return t.invokeResult(ctx, c, res, err)
	}
}

// invokeResult turns an invoke's answer into the call's result. A failed
// invoke is the call's error, never the session's (ER-04); the kernel
// itself names a crash process_crashed (ER-09); an output that breaks the
// tool's output_schema is an unknown-category error, never a success
// (ER-12).
func (t *Turn) invokeResult(ctx context.Context, c *Call, res wire.ToolInvokeResult, err error) *wire.ToolResult {
	s := t.Session
	if err == nil {
		if !res.IsError {
			if bad := s.parts.ToolErrs.CheckOutput(s.outSchemas[c.Use.Name], res.Output); bad != nil {
				s.crashes.note(c.Schema.Provider, false)
				t.toolError(c, wire.ToolErrUnknown, bad.Error())
				return &wire.ToolResult{Content: "the tool's output was rejected: " + bad.Error(), IsError: true, ErrorCategory: wire.ToolErrUnknown}
			}
		}
		s.crashes.note(c.Schema.Provider, false)
		return &wire.ToolResult{Content: outputText(res.Output), IsError: res.IsError, ErrorCategory: res.ErrorCategory}
	}
	if ctx.Err() != nil {
		return &wire.ToolResult{IsError: true, ErrorCategory: wire.ToolErrCancelled, Content: "the tool call was cancelled"}
	}
	crashed := host.HasCode(err, wire.CodeProcessCrashed)
	r, fatal := s.parts.ToolErrs.Failed(crashed, err.Error())
	if fatal {
		c.fatal = err
	}
	s.crashes.note(c.Schema.Provider, crashed)
	t.toolError(c, r.ErrorCategory, err.Error())
	return &r
}

func (t *Turn) toolError(c *Call, category, msg string) {
	host.Emit(t.Session.host, t.Session.id, t.ID, wire.EventToolError, host.KernelProducer, map[string]any{
		"call_id": c.Use.ID, "tool_call_id": c.Use.ID, "provider": c.Schema.Provider, "tool": c.Use.Name,
		"category": category, "message": msg,
	})
}

// fatalToolError is the first invoke failure the ToolErrs part declared
// fatal, which ends the session (never with the reference part).
func (t *Turn) fatalToolError() error {
	for _, c := range t.ToolCalls() {
		if c.fatal != nil {
			return c.fatal
		}
	}
	return nil
}

// crashCounter counts, per provider, the crashes in a row of this session.
// Invokes run in parallel, so it has its own lock. It is separate from the
// denial history of the policy circuit breaker (PA-05).
type crashCounter struct {
	mu     sync.Mutex
	inARow map[string]int
}

func (k *crashCounter) note(provider string, crashed bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.inARow == nil {
		k.inARow = map[string]int{}
	}
	if crashed {
		k.inARow[provider]++
	} else {
		k.inARow[provider] = 0
	}
}

// worst is the provider with the most crashes in a row, and their number.
func (k *crashCounter) worst() (string, int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	best, n := "", 0
	for p, c := range k.inARow {
		if c > n || (c == n && p < best) {
			best, n = p, c
		}
	}
	return best, n
}

// afterToolErrors runs at step 17, once the turn's calls are in the
// history. A fatal invoke failure ends the session (never with the
// reference part). Otherwise, once one provider has crashed often enough in
// a row, the circuit breaker trips (ER-10) and the session takes the
// limit-reached path: one final-answer turn, then the circuit-breaker
// status (reading circuit_breaker.status).
func (t *Turn) afterToolErrors() error {
	if err := t.fatalToolError(); err != nil {
		return err
	}
	s := t.Session
	if t.Done || t.Fired != nil {
		return nil
	}
	provider, n := s.crashes.worst()
	if n == 0 || !s.parts.ToolErrs.Trips(n, s.cfg.Policy.CircuitBreaker) {
		return nil
	}
	s.emit(t.ID, wire.EventCircuitBreaker, map[string]any{
		"cause": "crashes", "provider": provider, "crashes": n,
	})
	t.Fired = &bounds.Fired{Bound: bounds.CircuitBreaker, Status: plangate.BreakerStatus}
	return nil
}

// retryInteractive says whether a failed interactive request is sent
// again; the reference part never allows it (ER-11).
func (t *Turn) retryInteractive(c *Call, attempt int) bool {
	return t.Session.parts.ToolErrs.Retry(*c.Schema, attempt)
}

var _ retry.ToolPolicy = retry.StandardTools{}
