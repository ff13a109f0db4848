package refplugin

import (
	"context"
	"os"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
)

// table is what lookup and search read.
var table = map[string]string{
	"alpha": "the first letter", "beta": "the second letter", "gamma": "the third letter",
	"": "the empty key", "conform": "a conformance tool",
}

// send is how an operation emits one event; it fails once the caller is
// gone.
type send func(*toolv1.ToolEvent) error

// Invoke runs one call. Arguments that fail the operation's input_schema
// end in invalid_arguments before anything runs.
func (p *Provider) Invoke(req *toolv1.InvokeRequest, stream toolv1.ToolService_InvokeServer) error {
	ctx := stream.Context()
	call := req.GetCall()
	out := func(ev *toolv1.ToolEvent) error { return stream.Send(&toolv1.InvokeResponse{Event: ev}) }
	if p.faults.CrashOnCancel || p.faults.SuccessAfterCancel {
		defer p.onCancel(ctx, out)()
	}
	var schema *toolv1.ToolSchema
	for _, t := range tools(Faults{}, 0) {
		if t.GetName() == call.GetToolName() {
			schema = t
		}
	}
	if schema == nil {
		return out(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_NOT_FOUND, "no operation named "+quote(call.GetToolName()), nil))
	}
	args := call.GetArguments().AsMap()
	if err := validate(args, schema.GetInputSchema(), ""); err != nil {
		return p.invalid(call.GetToolName(), args, err, out)
	}
	switch call.GetToolName() {
	case OpLookup:
		return p.lookup(args, out)
	case OpSearch:
		return p.search(ctx, args, out)
	case OpWrite:
		return p.write(ctx, call, args, out)
	case OpAsk:
		return p.ask(args, out)
	case OpExec:
		return p.exec(ctx, call, args, out)
	}
	return status.Errorf(codes.Internal, "operation %s has no implementation", call.GetToolName())
}

func (p *Provider) invalid(op string, args map[string]any, why error, out send) error {
	if p.faults.AcceptInvalid && op == OpLookup {
		ev, err := result(map[string]any{"key": "", "found": false})
		if err != nil {
			return err
		}
		return out(ev)
	}
	cat := toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS
	if p.faults.InvalidAsFailed {
		cat = toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED
	}
	msg := why.Error()
	if p.faults.SecretInError {
		token, _, _ := p.settings()
		msg += " (token " + token + ")"
	}
	return out(toolError(cat, msg, nil))
}

// onCancel returns what the cancel faults do when the call is cancelled.
func (p *Provider) onCancel(ctx context.Context, out send) func() {
	return func() {
		if ctx.Err() == nil {
			return
		}
		if p.faults.CrashOnCancel {
			os.Exit(3)
		}
		if ev, err := result(map[string]any{"key": "cancelled", "found": true}); err == nil {
			_ = out(ev)
		}
	}
}

func (p *Provider) lookup(args map[string]any, out send) error {
	key, _ := args["key"].(string)
	switch args["case"] {
	case "upper":
		key = strings.ToUpper(key)
	case "lower":
		key = strings.ToLower(key)
	}
	if p.faults.UnspecifiedCategory && key == "" {
		return out(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_UNSPECIFIED, "empty key", nil))
	}
	if p.faults.LeadUpNotStreaming {
		if err := out(progress("looking up")); err != nil {
			return err
		}
	}
	if p.faults.ExitStatusOnLookup {
		if err := out(&toolv1.ToolEvent{Event: &toolv1.ToolEvent_ExitStatus_{ExitStatus: &toolv1.ToolEvent_ExitStatus{}}}); err != nil {
			return err
		}
	}
	v, found := table[key]
	payload := map[string]any{"key": key, "found": found}
	if found {
		payload["value"] = v
	}
	if p.faults.OutputViolation {
		delete(payload, "found")
	}
	ev, err := result(payload)
	if err != nil {
		return err
	}
	if err := out(ev); err != nil {
		return err
	}
	if p.faults.TwoTerminals {
		return out(ev)
	}
	return nil
}

func (p *Provider) search(ctx context.Context, args map[string]any, out send) error {
	q, _ := args["query"].(string)
	in := []string{"key", "value"}
	if list, ok := args["in"].([]any); ok && len(list) > 0 {
		in = in[:0]
		for _, f := range list {
			if slices.Contains(in, f.(string)) {
				// The index refuses a field named twice; what it said is
				// the raw error unknown must carry.
				var details map[string]any
				if !p.faults.UnknownNoDetails {
					details = map[string]any{"raw": "index: duplicate field " + quote(f.(string))}
				}
				return out(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_UNKNOWN, "the index failed", details))
			}
			in = append(in, f.(string))
		}
	}
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	hits := []any{}
	lq := strings.ToLower(q)
	for _, k := range keys {
		match := slices.Contains(in, "key") && strings.Contains(strings.ToLower(k), lq) ||
			slices.Contains(in, "value") && strings.Contains(strings.ToLower(table[k]), lq)
		if !match {
			continue
		}
		if ctx.Err() != nil {
			return nil // cancelled: nothing more to say, and no result
		}
		hit := map[string]any{"key": k, "value": table[k]}
		hits = append(hits, hit)
		ev, err := partial(hit)
		if err != nil {
			return err
		}
		if err := out(ev); err != nil {
			return nil
		}
	}
	ev, err := result(map[string]any{"hits": hits})
	if err != nil {
		return err
	}
	return out(ev)
}

func (p *Provider) ask(args map[string]any, out send) error {
	_, _, answer := p.settings()
	if choices, ok := args["choices"].([]any); ok && len(choices) > 0 {
		answer, _ = choices[0].(string)
	}
	ev, err := result(map[string]any{"answer": answer})
	if err != nil {
		return err
	}
	return out(ev)
}

func quote(s string) string { return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\"" }
