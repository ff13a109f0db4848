package pluginconform

import (
	"context"
	"fmt"
	"slices"
	"time"

	"pgregory.net/rapid"

	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/pluginconform/schemagen"
)

// The requirements generated valid arguments judge, and those broken
// arguments judge.
var (
	validIDs   = []string{"PL-14", "PL-15", "PL-16", "PL-17", "PL-18", "PL-19", "PL-20", "PL-21"}
	invalidIDs = []string{"PL-18"}
)

// checkOperations runs the behavioural checks of every operation.
func (r *run) checkOperations(ctx context.Context) {
	served := r.rec.Scenario("plugin/invoke", "Invoke is served", "PL-01")
	anyEnded := false
	for _, op := range r.schema.GetTools() {
		if op.GetName() == "" || r.opByName(op.GetName()) != op {
			continue // unnamed or duplicated: PL-04 says so; calls could not tell them apart
		}
		if op.GetKind() == toolv1.ToolKind_TOOL_KIND_RESOURCE && r.opt.AllowEffects == "" {
			s := r.rec.Scenario("plugin/invoke/"+op.GetName(), "invoke "+op.GetName()+" (resource)")
			for _, id := range []string{"PL-14", "PL-17", "PL-18", "PL-22", "PL-25"} {
				s.NotReached("invoke resource operation "+op.GetName(), "resource operations may change things: they run only with --allow-effects DIR", id)
			}
			r.rec.Add(s)
			continue
		}
		if r.invokeValid(ctx, op) {
			anyEnded = true
		}
		r.invokeInvalid(ctx, op)
		r.checkCancel(ctx, op)
		r.checkPreview(ctx, op)
	}
	r.unjudged("plugin/invoke", "stream rules that applied to no call", map[string]string{
		"PL-15": "no operation is declared streaming false",
		"PL-16": "no operation sent exit_status, and none is named with --process-backed",
		"PL-19": "no call ended with an error event",
		"PL-20": "no call ended with an error of category unknown",
		"PL-21": "no call ended with an error event",
	})
	if anyEnded {
		served.Pass("Invoke streams answered with a terminal event", "PL-01")
	} else {
		served.NotReached("Invoke streams answered with a terminal event", "no operation's generated call ended with a result or error", "PL-01")
	}
	r.rec.Add(served)
}

// callTimeout is how long one call may take: an interactive operation may
// wait for a person conform cannot be, so its wait ends sooner and is not
// an error.
func (r *run) callTimeout(op *toolv1.ToolSchema) time.Duration {
	if op.GetKind() == toolv1.ToolKind_TOOL_KIND_INTERACTIVE {
		return min(r.opt.CallTimeout, time.Duration(float64(3*time.Second)*r.opt.Multiplier))
	}
	return r.opt.CallTimeout
}

// invokeValid runs the operation on arguments generated from its
// input_schema; true when some call ended with a terminal event.
func (r *run) invokeValid(ctx context.Context, op *toolv1.ToolSchema) bool {
	s := r.rec.Scenario("plugin/invoke/"+op.GetName(), "invoke "+op.GetName()+" with generated arguments", validIDs...)
	defer r.rec.Add(s)
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return false
	}
	out, err := schemagen.Compile(op.GetName()+"-output", op.GetOutputSchema())
	if err != nil {
		out = nil
	}
	in, inErr := schemagen.Compile(op.GetName()+"-input", op.GetInputSchema())
	ended := false
	interactive := op.GetKind() == toolv1.ToolKind_TOOL_KIND_INTERACTIVE
	res := r.property(r.opt.Cases, func(t *rapid.T) (verdicts, any, string, string) {
		args := schemagen.Args(op.GetInputSchema()).Draw(t, "arguments")
		if inErr == nil {
			if err := in.Validate(args); err != nil {
				return nil, args, "", "conform generated arguments its own validator rejects (" + err.Error() + "): a conform bug"
			}
		}
		o := r.invoke(ctx, op.GetName(), args, r.callTimeout(op))
		switch {
		case o.died != "":
			return nil, args, "", fmt.Sprintf("Invoke of %s with %s: %s", op.GetName(), clip(jsonText(args), 300), o.died)
		case o.hung && interactive:
			return nil, args, "", "blocked"
		case o.hung:
			return nil, args, "", fmt.Sprintf("Invoke of %s with %s neither ended nor sent a result or error within %v", op.GetName(), clip(jsonText(args), 300), r.callTimeout(op))
		}
		v := r.judgeShape(op, o)
		if v["PL-14"] == "" {
			ended = true
		}
		judgeResult(out, o, v)
		judgeValidAccepted(o, v)
		return v, args, "", ""
	})
	unreached := map[string]string{
		"PL-15": "the operation is declared streaming true, so lead-up events are allowed",
		"PL-16": "no exit_status was sent, and the operation is not named with --process-backed",
		"PL-17": "no generated call ended with a result",
		"PL-18": "no generated call ended with a result or error",
		"PL-19": "no generated call ended with an error",
		"PL-20": "no error of category unknown was sent",
		"PL-21": "no generated call ended with an error",
	}
	if out == nil {
		unreached["PL-17"] = "output_schema could not be compiled: " + fmt.Sprint(err)
	}
	if res.Stopped == "blocked" {
		res.Stopped = ""
		r.blocked[op.GetName()] = true
		for _, id := range validIDs {
			if res.Held[id] == 0 {
				unreached[id] = fmt.Sprintf("the interactive operation did not answer within %v; conform has no channel to hand it a person's answer", r.callTimeout(op))
			}
		}
	} else if res.Stopped != "" {
		s.Errorf("%s", res.Stopped)
	}
	res.Record(r.rec, s, fmt.Sprintf("%d generated calls of %s", res.Calls, op.GetName()), validIDs, unreached, "PL-15", "PL-16", "PL-19", "PL-20", "PL-21")
	return ended
}

// invokeInvalid runs the operation on arguments broken in one place.
func (r *run) invokeInvalid(ctx context.Context, op *toolv1.ToolSchema) {
	s := r.rec.Scenario("plugin/invoke/"+op.GetName(), "invoke "+op.GetName()+" with invalid arguments", invalidIDs...)
	defer r.rec.Add(s)
	gen, ok := schemagen.Invalid(op.GetInputSchema())
	if !ok {
		s.NotReached("invalid arguments end in invalid_arguments", "the input_schema leaves nothing to break: no property, nothing required", "PL-18")
		return
	}
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	in, inErr := schemagen.Compile(op.GetName()+"-input", op.GetInputSchema())
	res := r.property(max(r.opt.Cases/2, 1), func(t *rapid.T) (verdicts, any, string, string) {
		b := r.drawBroken(t, gen, op)
		if inErr == nil && in.Validate(b.Args) == nil {
			return nil, b.Args, b.How, "" // not actually invalid: nothing to judge
		}
		o := r.invoke(ctx, op.GetName(), b.Args, r.callTimeout(op))
		switch {
		case o.died != "":
			return nil, b.Args, b.How, fmt.Sprintf("Invoke of %s with invalid arguments %s: %s", op.GetName(), clip(jsonText(b.Args), 300), o.died)
		case o.hung && op.GetKind() == toolv1.ToolKind_TOOL_KIND_INTERACTIVE:
			return nil, b.Args, b.How, "blocked"
		case o.hung:
			return nil, b.Args, b.How, fmt.Sprintf("Invoke of %s with invalid arguments %s did not end within %v", op.GetName(), clip(jsonText(b.Args), 300), r.callTimeout(op))
		}
		v := r.judgeShape(op, o)
		judgeInvalid(o, b.How, v)
		return v, b.Args, b.How, ""
	})
	if res.Stopped == "blocked" {
		res.Stopped = ""
	} else if res.Stopped != "" {
		s.Errorf("%s", res.Stopped)
	}
	ids := append([]string{"PL-18"}, "PL-14", "PL-19", "PL-20", "PL-21")
	res.Record(r.rec, s, fmt.Sprintf("%d calls of %s with invalid arguments", res.Calls, op.GetName()), ids, map[string]string{
		"PL-18": "no call with invalid arguments ended",
	}, "PL-19", "PL-20", "PL-21")
}

// drawBroken draws arguments broken in one place or, one time in four,
// valid arguments of another operation (a model that mixes its tools up
// sends those): a plugin that validates a call against the wrong
// operation's input_schema accepts them. Those valid for op too are
// skipped by the caller like any other draw that is not invalid.
func (r *run) drawBroken(t *rapid.T, gen *rapid.Generator[schemagen.Broken], op *toolv1.ToolSchema) schemagen.Broken {
	others := slices.DeleteFunc(slices.Clone(r.schema.GetTools()), func(o *toolv1.ToolSchema) bool { return o.GetName() == op.GetName() })
	if len(others) == 0 || rapid.IntRange(0, 3).Draw(t, "another operation's arguments?") != 0 {
		return gen.Draw(t, "broken arguments")
	}
	o := rapid.SampledFrom(others).Draw(t, "other operation")
	return schemagen.Broken{Args: schemagen.Args(o.GetInputSchema()).Draw(t, "its arguments"), How: fmt.Sprintf("operation %q's valid arguments in their place", o.GetName())}
}
