package testagent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// agent is one run of the test agent.
type agent struct {
	c      config
	m      model
	sess   *mcp.ClientSession
	tools  []tool
	hooks  *hooks
	tr     trace.Tracer
	stderr io.Writer
}

// statusStopped ends a run a hook stopped ("continue": false).
const statusStopped = "hook_stopped"

// session is the whole run: SessionStart hooks, the loop, SessionEnd
// hooks, inside one session span.
func (a *agent) session(ctx context.Context) outcome {
	ctx, span := a.tr.Start(ctx, SpanSession)
	defer span.End()
	system := "You are conform's test agent."
	v := a.hook(ctx, "SessionStart", "", map[string]any{"source": "startup"})
	if v.context != "" {
		system += "\n" + v.context
	}
	var out outcome
	if v.stop {
		out = outcome{Type: "result", Status: statusStopped, Text: v.stopReason}
	} else {
		out = a.loop(ctx, system)
	}
	a.hook(ctx, "SessionEnd", "", map[string]any{"reason": "other"})
	if out.Status != "completed" {
		span.SetStatus(codes.Error, out.Status)
	}
	return out
}

// hook runs an event's hooks inside a span of their own.
func (a *agent) hook(ctx context.Context, event, tool string, fields map[string]any) verdict {
	if len(a.hooks.byEvent[event]) == 0 {
		return verdict{}
	}
	ctx, span := a.tr.Start(ctx, SpanHook, trace.WithAttributes(attribute.String("hook.event", event)))
	defer span.End()
	return a.hooks.run(ctx, event, tool, fields)
}

func (a *agent) loop(ctx context.Context, system string) outcome {
	hist := []step{{user: a.c.prompt}}
	out := outcome{Type: "result"}
	if a.c.titleCall {
		// Not a turn: no turn span.
		if _, err := a.m.send(ctx, "Generate a title for this conversation.", hist, nil); err != nil {
			fmt.Fprintln(a.stderr, "test-agent: title call failed:", err)
		}
	}
	for {
		st, r, stop, err := a.turn(ctx, system, hist)
		out.Turns++
		if err != nil {
			out.Status, out.Error = "model_error", err.Error()
			fmt.Fprintln(a.stderr, "test-agent: model call failed:", err)
			return out
		}
		out.InputTokens += r.input
		out.OutputTokens += r.output
		if stop != "" {
			out.Status, out.Text = statusStopped, stop
			return out
		}
		if len(r.calls) == 0 {
			out.Status, out.Text = "completed", r.text
			return out
		}
		hist = append(hist, st)
		if (a.c.maxTurns > 0 && out.Turns >= a.c.maxTurns) || out.Turns >= 50 {
			out.Status = "max_turns"
			return out
		}
	}
}

// turn is one model request and the calls it asked for, inside a turn
// span; stop is a hook's stopReason when one said "continue": false.
func (a *agent) turn(ctx context.Context, system string, hist []step) (st step, r reply, stop string, err error) {
	ctx, span := a.tr.Start(ctx, SpanTurn)
	defer span.End()
	mctx, ms := a.tr.Start(ctx, SpanModel, trace.WithAttributes(attribute.String("gen_ai.request.model", a.c.model)))
	r, err = a.m.send(mctx, system, hist, a.tools)
	if err != nil {
		ms.SetStatus(codes.Error, err.Error())
	}
	ms.End()
	if err != nil {
		return st, r, "", err
	}
	st = step{text: r.text, calls: r.calls}
	for _, cl := range r.calls {
		res, why := a.call(ctx, cl)
		st.results = append(st.results, res)
		if why != "" {
			return st, r, why, nil
		}
	}
	return st, r, "", nil
}

// call runs one tool call between its PreToolUse and PostToolUse hooks;
// stop is a hook's stopReason.
func (a *agent) call(ctx context.Context, c call) (res result, stop string) {
	var input any
	_ = json.Unmarshal(c.input, &input)
	ev := map[string]any{"tool_name": c.name, "tool_input": input, "tool_use_id": c.id}
	pre := a.hook(ctx, "PreToolUse", c.name, ev)
	if pre.deny {
		res = result{id: c.id, name: c.name, text: "denied by a hook: " + pre.reason, isError: true}
	} else {
		tctx, span := a.tr.Start(ctx, SpanTool, trace.WithAttributes(attribute.String("gen_ai.tool.name", c.name)))
		res = a.runTool(tctx, c)
		if res.isError {
			span.SetStatus(codes.Error, res.text)
		}
		span.End()
	}
	if pre.stop && a.c.misbehave != "ignore-stop" {
		return res, orReason(pre.stopReason)
	}
	if pre.deny {
		return res, ""
	}
	ev["tool_response"] = res.text
	post := a.hook(ctx, "PostToolUse", c.name, ev)
	if post.deny {
		// Claude Code gives a PostToolUse block's reason to the model.
		res.text += "\n(hook: " + post.reason + ")"
	}
	if post.stop && a.c.misbehave != "ignore-stop" {
		return res, orReason(post.stopReason)
	}
	return res, ""
}

func orReason(s string) string {
	if s == "" {
		return "stopped by a hook"
	}
	return s
}

func (a *agent) runTool(ctx context.Context, c call) result {
	r := result{id: c.id, name: c.name}
	name, ok := strings.CutPrefix(c.name, a.c.toolPrefix)
	if !ok || a.sess == nil || c.name == a.c.ownTool {
		r.text, r.isError = "no such tool: "+c.name, true
		return r
	}
	var args map[string]any
	_ = json.Unmarshal(c.input, &args)
	res, err := a.sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		r.text, r.isError = "tool call failed: "+err.Error(), true
		return r
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	r.text, r.isError = b.String(), res.IsError
	return r
}
