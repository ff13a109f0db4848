package loop

import (
	"context"
	"encoding/json"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/refkernel/schedule"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// VetoPoints are the hook points at which a veto subscriber's deny is acted
// on (reading hooks.veto_points, A-20): plan-ready (plangate, the whole
// plan) and pre-tool-call (here, that one call). At other points a veto
// subscriber is dispatched but its answer changes nothing.
const VetoPoints = wire.PointPlanReady + "," + wire.PointPreToolCall

// stepPreToolCall is step 7: one dispatch per call, in message order. A
// veto here denies that one call. A call naming a tool the session does not
// have is no tool call of any provider and has no kind for the payload, so
// no tool hook sees it (reading "hooks.unknown_tool").
func stepPreToolCall(t *Turn) error {
	for _, c := range t.ToolCalls() {
		if c.Schema == nil {
			continue
		}
		out, err := t.Session.dispatch(t.Ctx, t.CallContext, wire.PointPreToolCall, wire.HookPayload{Call: c.wire()})
		if err != nil {
			return err
		}
		if out.Denied && c.Result == nil {
			c.deny(hookDenial(out))
		}
	}
	return nil
}

func hookDenial(out hooks.Outcome) string {
	s := "denied by hook subscriber " + out.DeniedBy
	if out.Reason != "" {
		s += ": " + out.Reason
	}
	return s
}

// stepSplit is step 8: the kind comes from the session's schema of that
// name. An unknown tool is answered with an error and never invoked.
func stepSplit(t *Turn) error {
	for _, c := range t.ToolCalls() {
		switch {
		case c.Result != nil:
		case c.Schema == nil:
			c.Result = &wire.ToolResult{Content: fmt.Sprintf("unknown tool %q", c.Use.Name), IsError: true, ErrorCategory: wire.ToolErrNotFound}
		case t.Session.cfg.PlanMode && c.Kind() == wire.KindResource:
			c.deny("denied: resource tools are not available in plan mode")
		}
	}
	return nil
}

// pending lists the undecided calls of one kind, in message order.
func (t *Turn) pending(kind string) []*Call {
	var out []*Call
	for _, c := range t.ToolCalls() {
		if c.Result == nil && c.Kind() == kind {
			out = append(out, c)
		}
	}
	return out
}

// precheck runs the policy precheck of a read or interactive call and
// denies it on the spot when policy says no.
func (t *Turn) precheck(c *Call) bool {
	v := t.Session.gate.Precheck(t.CallContext, plangate.Call{ID: c.Use.ID, Provider: c.Schema.Provider, Tool: c.Use.Name, Kind: c.Kind()})
	if v.Decision != wire.PolicyAllow {
		c.deny(plangate.DenialText(v, c.Kind()))
		return false
	}
	return true
}

// stepDataSources is step 9: prechecked reads, run by the scheduler.
func stepDataSources(t *Turn) error {
	var jobs []schedule.Job
	for _, c := range t.pending(wire.KindDataSource) {
		if t.precheck(c) {
			jobs = append(jobs, t.invokeJob(c))
		}
	}
	t.runPhase(wire.KindDataSource, jobs)
	return nil
}

// stepInteractive is step 9b: prechecked interactive calls, strictly one at
// a time in message order whatever they declare (PA-07, TA-28): they all
// share one exclusive key, so the scheduler runs them in sequence. The
// human's answer is the result.
func stepInteractive(t *Turn) error {
	var jobs []schedule.Job
	for _, c := range t.pending(wire.KindInteractive) {
		if t.precheck(c) {
			jobs = append(jobs, t.interactiveJob(c))
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	t.runPhase(wire.KindInteractive, jobs)
	return t.Ctx.Err()
}

// interactiveJob is one frontend/interactive round trip.
func (t *Turn) interactiveJob(c *Call) schedule.Job {
	s := t.Session
	return schedule.Job{
		Key: s.parts.Keys.Key(*c.Schema, c.Input),
		Run: func(ctx context.Context) {
			p := wire.InteractiveParams{
				CallContext: t.CallContext, CallID: c.Use.ID, ToolName: c.Use.Name, Prompt: prompt(c), Input: c.Input,
			}
			s.gate.AwaitInteractive(t.CallContext, c.Use.ID, c.Use.Name) // another connection may answer it (PA-16)
			res, err := s.host.Interactive(ctx, p)
			for n := 1; err != nil && ctx.Err() == nil && t.retryInteractive(c, n); n++ { // ER-11: never, see errors.go
				res, err = s.host.Interactive(ctx, p)
			}
			response, answered := s.gate.InteractiveAnswered(c.Use.ID, res.Response, err == nil)
			c.Executed = true
			switch {
			case err == nil || (answered && ctx.Err() == nil):
				c.Result = &wire.ToolResult{Content: response}
			case ctx.Err() != nil:
				c.Result = &wire.ToolResult{Content: "the interactive call was cancelled", IsError: true, ErrorCategory: wire.ToolErrCancelled}
			default:
				c.Result = &wire.ToolResult{Content: "the interactive request failed: " + err.Error(), IsError: true, ErrorCategory: wire.ToolErrUnknown}
			}
		},
	}
}

// prompt is the input's "prompt" field when it has one, else what the tool
// says it does.
func prompt(c *Call) string {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if json.Unmarshal(c.Input, &in) == nil && in.Prompt != "" {
		return in.Prompt
	}
	return c.Schema.Description
}

// stepApply is step 12: the items cleared at step 11, run by the scheduler.
func stepApply(t *Turn) error {
	var jobs []schedule.Job
	for _, c := range t.planCalls {
		if c.Allowed && c.Result == nil {
			jobs = append(jobs, t.invokeJob(c))
		}
	}
	t.runPhase(wire.KindResource, jobs)
	return nil
}

// runPhase runs one group under a tool_execution span.
func (t *Turn) runPhase(kind string, jobs []schedule.Job) {
	if len(jobs) == 0 {
		return
	}
	ctx, span := t.phaseSpan(kind, len(jobs))
	defer span.End()
	t.Session.parts.Scheduler.Run(ctx, jobs, t.Session.cfg.Model.SupportsParallelToolCalls)
}

func (t *Turn) phaseSpan(kind string, n int) (context.Context, trace.Span) {
	return t.Session.tracer.Start(t.Ctx, wire.RoleToolExec, "tool_execution "+kind, trace.Turn(t.ID),
		attribute.String("conform.tool.kind", kind), attribute.Int("conform.tool.calls", n))
}

// invokeJob is one tool/invoke. Each job writes only its own Call.
func (t *Turn) invokeJob(c *Call) schedule.Job {
	s := t.Session
	return schedule.Job{
		Key: s.parts.Keys.Key(*c.Schema, c.Input),
		Run: func(ctx context.Context) {
			c.Result = t.invokeTool(ctx, c) // errors.go: retries, crashes, output_schema
		},
	}
}

// outputText is a tool's output as result text: a JSON string unquoted,
// anything else as JSON.
func outputText(out json.RawMessage) string {
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	return string(out)
}

// Host is the session's host. It is exported for swapped-in steps (mutants
// and tests), which need to talk to the harness the way the steps do.
func (t *Turn) Host() host.Host { return t.Session.host }

// Config is the session's config (tools, policy, plan mode, ...), for
// swapped-in steps.
func (t *Turn) Config() wire.SessionConfig { return t.Session.cfg }
