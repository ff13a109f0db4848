package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// The rules issue 16 made part of the schemas (PROTOCOL.md §3 "Arrays and
// null", §9 Message and HookPayload), each with a message that passes and
// one that breaks it.
func TestSchemaRules(t *testing.T) {
	dispatch := func(payload string) json.RawMessage {
		return raw(`{"call_context":{"session_id":"s","turn_id":"t","working_directory":""},"point":"plan-ready","subscriber":"o","mode":"observe","timeout_ms":10,"payload":` + payload + `}`)
	}
	stream := func(messages string) json.RawMessage {
		return raw(`{"call_context":{"session_id":"s","turn_id":"t","working_directory":""},"purpose":"turn","model":"m","messages":` + messages + `,"tools":[],"assembled_context":[],"attempt":1}`)
	}
	call := `{"id":"c1","name":"read","provider":"fs","kind":"data_source","input":{}}`
	cases := []struct {
		name, method string
		msg          json.RawMessage
		want         string // "" = valid; else a piece of the error
	}{
		{"plan-ready with its plan", MethodHookDispatch, dispatch(`{"variant":"plan-ready","plan":{"items":[]}}`), ""},
		{"plan-ready without a plan", MethodHookDispatch, dispatch(`{"variant":"plan-ready"}`), "missing property 'plan'"},
		{"post-apply without a plan", MethodHookDispatch, dispatch(`{"variant":"post-apply"}`), "missing property 'plan'"},
		{"pre-tool-call without its call", MethodHookDispatch, dispatch(`{"variant":"pre-tool-call"}`), "missing property 'call'"},
		{"post-tool-call without its result", MethodHookDispatch, dispatch(`{"variant":"post-tool-call","call":` + call + `}`), "missing property 'result'"},
		{"post-tool-call whole", MethodHookDispatch, dispatch(`{"variant":"post-tool-call","call":` + call + `,"result":{"content":"ok"}}`), ""},
		{"session-end without a status", MethodHookDispatch, dispatch(`{"variant":"session-end","session_id":"s"}`), "missing property 'status'"},
		{"session-start without a session", MethodHookDispatch, dispatch(`{"variant":"session-start"}`), "missing property 'session_id'"},
		{"post-model-response after a failure", MethodHookDispatch, dispatch(`{"variant":"post-model-response","error":{"category":"unknown","message":"x","retryable":false}}`), ""},
		{"optional arrays may be null", MethodHookDispatch, dispatch(`{"variant":"pre-model-call","model":"m","messages":null,"tools":null}`), ""},
		{"results in a user message", MethodModelStream, stream(`[{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"a"},{"type":"tool_result","tool_use_id":"c2","content":"b","is_error":true}]}]`), ""},
		{"a result in an assistant message", MethodModelStream, stream(`[{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"c1","content":"a"}]}]`), "/messages/0/content/0/type"},
		{"a call in a user message", MethodModelStream, stream(`[{"role":"user","content":[{"type":"tool_use","id":"c1","name":"read","input":{}}]}]`), "/messages/0/content/0/type"},
		{"a result in a system message", MethodModelStream, stream(`[{"role":"system","content":[{"type":"tool_result","tool_use_id":"c1","content":"a"}]}]`), "/messages/0/content/0/type"},
		{"scoped_providers null", MethodSessionSpawn, raw(`{"parent_session_id":"p","call_id":"c","profile":"w","prompt":"go","scoped_providers":null}`), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(c.method, PartParams, c.msg)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted, want an error with %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}
