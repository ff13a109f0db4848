package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// The tools of a turn as the model sees them, and the result of a call no
// tool of the session can run. TA-01: "Each turn walks through all 18
// RunTurn steps in the specified order"; the steps act on the session's own
// data. Step 2 builds the request with the session's tool specs, and
// PROTOCOL.md §9 says what a ToolSpec is: its name is the ToolSchema.name,
// its description the ToolSchema.description, its input_schema (optional)
// the JSON Schema of the arguments. Step 15 appends a result for every
// call (§12, which is TA-01: "every call gets a result, including ... one
// whose tool is unknown"); a call of a tool the session does not declare
// has no kind to be split by (step 8), so it runs nowhere, and its result
// is an error: a result without is_error reads as a tool that ran (§7.4).

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^every model request offered each of its tools with the name, description and input schema the session declares$`), s.proves(s.offeredAsDeclared, "TA-01"))
		sc.Step(stepRE(`^the call of request (\d+) to the undeclared tool "([^"]+)" never ran, and model request (\d+) holds an error result for it$`), s.proves(s.undeclaredToolCall, "TA-01"))
	})
}

// offeredAsDeclared: each tool a model request offers is a tool of the
// session, offered with its declared description. Its input_schema is
// optional in a ToolSpec (a kernel may leave it out); one that is sent is
// the declared schema, and for a tool that declares none, a schema that
// asks nothing of the arguments (an object, with no property named).
// Which tools a request offers is other requirements' business (plan
// mode, gates, profiles, the final answer): only those offered are judged.
func (s *Scenario) offeredAsDeclared() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	seen := 0
	for i, p := range s.modelRequests() {
		for _, t := range p.Tools {
			seen++
			if why := s.offeredWrong(t); why != "" {
				return fmt.Errorf("model request %d offers the tool %q %s", i+1, t.Name, why)
			}
		}
	}
	if seen == 0 {
		return notReached("no model request offered a tool")
	}
	return nil
}

// offeredWrong says how the ToolSpec t differs from the session's tool of
// its name, "" when it does not.
func (s *Scenario) offeredWrong(t wire.ToolSpec) string {
	i := slices.IndexFunc(s.Cfg.Tools, func(d wire.ToolSchema) bool { return d.Name == t.Name })
	if i < 0 {
		return "under a name no tool of the session has (a ToolSpec's name is the ToolSchema.name, PROTOCOL.md §9)"
	}
	d := s.Cfg.Tools[i]
	bridged := s.env != nil && s.env.Bridged
	switch {
	case bridged && !strings.Contains(t.Description, d.Description):
		// The agent has the description from the bridge's MCP server and
		// may add to it (a note of the server's), never lose it.
		return fmt.Sprintf("with the description %q, which does not hold the one the session declares, %q", t.Description, d.Description)
	case !bridged && t.Description != d.Description:
		return fmt.Sprintf("with the description %q; the session declares it %q (a ToolSpec's description is the ToolSchema.description, PROTOCOL.md §9)", t.Description, d.Description)
	case t.InputSchema == nil:
		return "" // optional in a ToolSpec
	case bridged:
		// An agent's dialect carries the schema in its own form (Gemini's
		// OpenAPI subset); what the bridge reads back is not the agent's.
		return ""
	case d.InputSchema == nil && !asksNothing(t.InputSchema):
		return fmt.Sprintf("with the input schema %s; the session declares it with none, so no schema may ask anything of its arguments", schemaText(t.InputSchema))
	case d.InputSchema != nil && !sameJSON(mustJSON(t.InputSchema), mustJSON(d.InputSchema)):
		return fmt.Sprintf("with the input schema %s; the session declares it %s", schemaText(t.InputSchema), schemaText(d.InputSchema))
	}
	return ""
}

// asksNothing: a schema any arguments object meets: {} or
// {"type": "object"}, with at most an empty properties, an empty required
// list and additionalProperties true (what providers that want a schema
// for every tool are given for one that declares none).
func asksNothing(sc map[string]any) bool {
	for k, v := range sc {
		switch k {
		case "type":
			if v != "object" {
				return false
			}
		case "properties":
			if m, ok := v.(map[string]any); !ok || len(m) > 0 {
				return false
			}
		case "required":
			if l, ok := v.([]any); !ok || len(l) > 0 {
				return false
			}
		case "additionalProperties":
			if v != true {
				return false
			}
		case "$schema":
		default:
			return false
		}
	}
	return true
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func schemaText(sc map[string]any) string { return string(mustJSON(sc)) }

// undeclaredToolCall: a call of a tool the session does not declare is
// run nowhere (no tool/invoke, no frontend/interactive: the kernel knows
// no provider or kind for it) and gets its result like every call, an
// error one (is_error: a result without the flag reads as a tool that ran,
// PROTOCOL.md §7.4), in the next model request; so the session goes on.
func (s *Scenario) undeclaredToolCall(from int, tool string, n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if slices.ContainsFunc(s.Cfg.Tools, func(t wire.ToolSchema) bool { return t.Name == tool }) {
		return scenarioDefect("the session declares the tool %q", tool)
	}
	es := s.modelEntries()
	if from < 1 || from > len(es) {
		return notReached("there is no model request %d, whose answer holds the call to %q: the kernel sent %d", from, tool, len(es))
	}
	id := ""
	for _, c := range replyCalls(es[from-1]) {
		if c.Name == tool {
			id = c.ID
		}
	}
	if id == "" {
		return scenarioDefect("the answer to model request %d has no call to %q", from, tool)
	}
	for _, e := range s.requests() {
		switch p := e.Value.(type) {
		case wire.ToolInvokeParams:
			if p.CallID == id || p.Tool == tool {
				return fmt.Errorf("the kernel sent a tool/invoke (#%d) for the call %s to %q, a tool the session does not declare", e.Seq, id, tool)
			}
		case wire.InteractiveParams:
			if p.CallID == id {
				return fmt.Errorf("the kernel sent a frontend/interactive (#%d) for the call %s to %q, a tool the session does not declare", e.Seq, id, tool)
			}
		}
	}
	if rs := s.modelRequests(); len(rs) < n {
		return fmt.Errorf("expected model request %d to hold the error result of the call %s to %q, a tool the session does not declare; the kernel sent %d model request(s) and ended %q (error %q)",
			n, id, tool, len(rs), s.Result.Status, s.Result.Error)
	}
	b, err := s.resultBlock(n, id)
	if err != nil {
		return err
	}
	if !b.IsError && s.bridgedWithoutErrorFlag() {
		return glueNotReached(fmt.Sprintf("the agent's dialect (%s %s) has no error flag on a tool result, so whether the agent took the result %q of the call %s to %q for an error cannot be told (bridge glue)",
			BridgeDialect, s.env.Info.Readings[BridgeDialect], b.Content, id, tool))
	}
	if !b.IsError {
		return fmt.Errorf("expected the result of the call %s to %q, a tool the session does not declare, to be an error (is_error) in model request %d; the model was given it as a success: %q", id, tool, n, b.Content)
	}
	return nil
}

// BridgeDialect is the bridge's reading naming the HTTP dialect the agent
// speaks to the fake model.
const BridgeDialect = "bridge.dialect"

// bridgedWithoutErrorFlag: the kernel is the harness's own bridge, and the
// agent's dialect gives a tool result no error flag (a Chat Completions
// tool message, a Responses function_call_output), so no result it sends
// can carry is_error. Only the bridge may say so, as for its hook points.
func (s *Scenario) bridgedWithoutErrorFlag() bool {
	if s.env == nil || !s.env.Bridged {
		return false
	}
	d := s.env.Info.Readings[BridgeDialect]
	return d == "openai-chat" || d == "openai-responses"
}
