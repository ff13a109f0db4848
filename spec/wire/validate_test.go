package wire

import (
	"encoding/json"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func allParts() [][2]string {
	var out [][2]string
	for _, m := range Methods() {
		out = append(out, [2]string{m, PartParams})
		if !IsNotification(m) {
			out = append(out, [2]string{m, PartResult})
		}
	}
	return out
}

func TestMethods(t *testing.T) {
	want := []string{
		"$/cancelRequest", "context/assemble", "cost/usage", "event", "frontend/confirm", "frontend/decide", "frontend/interactive",
		"frontend/permission", "hook/dispatch", "initialize", "memory/write", "model/stream", "session/cancel",
		"session/continue", "session/meta", "session/run", "session/spawn", "shutdown",
		"tool/invoke", "tool/preview", "trace/span",
	}
	if got := Methods(); !slices.Equal(got, want) {
		t.Fatalf("Methods() = %v\nwant %v", got, want)
	}
	if len(allParts()) != len(partTypes) {
		t.Fatalf("%d message parts, %d Go bindings in partTypes", len(allParts()), len(partTypes))
	}
}

// TestSchemasCompile proves the embedded schemas compile (loadSchemas would
// panic otherwise), that there is exactly one file per message part plus
// defs.json, and that every file carries the $id its references rely on.
func TestSchemasCompile(t *testing.T) {
	compileOnce.Do(loadSchemas)
	for _, p := range allParts() {
		if sch, ok := schemaOf(schemaKey(p[0], p[1])); !ok || sch == nil {
			t.Errorf("%s %s: no compiled schema", p[0], p[1])
		}
	}
	want := []string{"defs.json"}
	for _, p := range allParts() {
		want = append(want, SchemaFile(p[0], p[1]))
	}
	sort.Strings(want)
	var got []string
	entries, err := fs.ReadDir(schemaFS, "schemas")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got = append(got, e.Name())
		doc := readSchema(t, e.Name())
		if doc["$id"] != SchemaBase+e.Name() {
			t.Errorf("%s: $id is %v, want %s", e.Name(), doc["$id"], SchemaBase+e.Name())
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v, want draft 2020-12", e.Name(), doc["$schema"])
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("schema files:\n got %v\nwant %v", got, want)
	}
}

func TestSchemaFile(t *testing.T) {
	for _, c := range [][3]string{
		{"session/run", "params", "session.run.params.json"},
		{"model/stream", "result", "model.stream.result.json"},
		{"trace/span", "params", "trace.span.params.json"},
		{"$/cancelRequest", "params", "cancelRequest.params.json"},
		{"initialize", "result", "initialize.result.json"},
	} {
		if got := SchemaFile(c[0], c[1]); got != c[2] {
			t.Errorf("SchemaFile(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func readSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := schemaFS.ReadFile("schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc
}

// nonNullableArrays are the slices without omitempty whose schema
// nevertheless demands an array (a nil value there is a sender bug).
var nonNullableArrays = map[string]bool{
	"InitializeParams.protocol_versions": true,
}

// TestSchemaMatchesGoTypes walks every Go binding next to its schema: each
// struct is a closed object whose properties are exactly the struct's JSON
// names, whose required list is exactly the fields without omitempty, and
// whose leaf types agree with the Go kinds. A field added to a Go type
// without its schema (or the reverse) fails here.
func TestSchemaMatchesGoTypes(t *testing.T) {
	defs := readSchema(t, "defs.json")["$defs"].(map[string]any)
	resolve := func(node map[string]any) map[string]any {
		for {
			r, ok := node["$ref"].(string)
			if !ok {
				return node
			}
			_, frag, _ := strings.Cut(r, "#/$defs/")
			def, ok := defs[frag].(map[string]any)
			if !ok {
				t.Fatalf("unresolvable $ref %q", r)
			}
			node = def
		}
	}
	typesOf := func(node map[string]any) []string {
		switch v := node["type"].(type) {
		case string:
			return []string{v}
		case []any:
			var out []string
			for _, x := range v {
				out = append(out, x.(string))
			}
			return out
		}
		return nil
	}
	rawMessage := reflect.TypeFor[json.RawMessage]()

	var walk func(where string, rt reflect.Type, node map[string]any)
	walk = func(where string, rt reflect.Type, node map[string]any) {
		node = resolve(node)
		for rt.Kind() == reflect.Pointer {
			rt = rt.Elem()
		}
		if rt == rawMessage {
			return // any JSON value; constrained by hand in the schema
		}
		ts := typesOf(node)
		wantType := map[reflect.Kind]string{
			reflect.String: "string", reflect.Bool: "boolean",
			reflect.Int: "integer", reflect.Int64: "integer", reflect.Float64: "number",
			reflect.Struct: "object", reflect.Map: "object", reflect.Slice: "array",
		}[rt.Kind()]
		if wantType == "" {
			t.Errorf("%s: Go kind %s not handled by this test", where, rt.Kind())
			return
		}
		if ts == nil {
			if _, isConst := node["const"]; !isConst {
				t.Errorf("%s: schema has no type, want %s", where, wantType)
			}
			return
		}
		if !slices.Contains(ts, wantType) {
			t.Errorf("%s: schema type %v, Go wants %s", where, ts, wantType)
		}
		switch rt.Kind() {
		case reflect.Slice:
			items, _ := node["items"].(map[string]any)
			if items == nil {
				t.Errorf("%s: array without items", where)
				return
			}
			walk(where+"[]", rt.Elem(), items)
		case reflect.Struct:
			if node["additionalProperties"] != false {
				t.Errorf("%s: object is not closed (additionalProperties: false)", where)
			}
			props, _ := node["properties"].(map[string]any)
			var req []string
			rs, _ := node["required"].([]any)
			for _, r := range rs {
				req = append(req, r.(string))
			}
			seen := map[string]bool{}
			var wantReq []string
			for i := 0; i < rt.NumField(); i++ {
				f := rt.Field(i)
				name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" || !f.IsExported() {
					continue
				}
				if name == "" {
					name = f.Name
				}
				seen[name] = true
				omitempty := strings.Contains(opts, "omitempty")
				if !omitempty {
					wantReq = append(wantReq, name)
				}
				p, ok := props[name].(map[string]any)
				if !ok {
					t.Errorf("%s: Go field %s (%q) missing from schema", where, f.Name, name)
					continue
				}
				fieldWhere := rt.Name() + "." + name
				if !omitempty && f.Type.Kind() == reflect.Slice && f.Type != rawMessage {
					nullable := slices.Contains(typesOf(resolve(p)), "null")
					if nullable == nonNullableArrays[fieldWhere] {
						t.Errorf("%s: nullable=%v; a nil Go slice marshals as null", fieldWhere, nullable)
					}
				}
				walk(fieldWhere, f.Type, p)
			}
			for name := range props {
				if !seen[name] {
					t.Errorf("%s: schema property %q has no Go field", where, name)
				}
			}
			sort.Strings(req)
			sort.Strings(wantReq)
			if !slices.Equal(req, wantReq) {
				t.Errorf("%s: schema requires %v, Go fields without omitempty are %v", where, req, wantReq)
			}
		}
	}

	for key, rt := range partTypes {
		method, part, _ := strings.Cut(key, " ")
		walk(key, rt, readSchema(t, SchemaFile(method, part)))
	}
}

// set changes (or, with del, removes) the value at a slash-separated path
// of a JSON document.
func set(t *testing.T, doc any, path string, v any, del bool) {
	t.Helper()
	toks := strings.Split(path, "/")
	cur := doc
	for i, tok := range toks {
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if del {
					delete(c, tok)
				} else {
					c[tok] = v
				}
				return
			}
			cur = c[tok]
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n >= len(c) {
				t.Fatalf("bad index %q in %s", tok, path)
			}
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		default:
			t.Fatalf("path %s: %q is not inside an object or array", path, tok)
		}
	}
}

func mutated(t *testing.T, value any, path string, v any, del bool) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if path != "" {
		set(t, doc, path, v, del)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestValidateRejects(t *testing.T) {
	run := RunParams{SessionID: "root-1", Prompt: "p", Config: fullConfig}
	stream := typicalModelStreamParams()
	streamResult := ModelStreamResult{Events: []StreamEvent{{Type: EventToolCall, ID: "c1", Name: "read", Input: raw(`{}`)}}}
	del := struct{}{}
	cases := []struct {
		name          string
		method, part  string
		value         any
		path          string
		v             any
		wantAt, wantR string
	}{
		{"unknown field", MethodSessionRun, PartParams, run, "config/bounds/max_turnz", 3, "/config/bounds", "additional properties 'max_turnz' not allowed"},
		{"unknown top-level field", MethodModelStream, PartParams, stream, "temperature", 0.2, "/", "additional properties 'temperature' not allowed"},
		{"wrong type", MethodSessionRun, PartParams, run, "config/bounds/max_turns", "3", "/config/bounds/max_turns", "got string, want integer"},
		{"fraction for an integer", MethodSessionRun, PartResult, RunSessionResult{SessionID: "s", Status: StatusCompleted}, "turns", 1.5, "/turns", "want integer"},
		{"negative tokens", NotifyCostUsage, PartParams, CostUsage{SessionID: "s"}, "usage/input_tokens", -1, "/usage/input_tokens", "minimum"},
		{"negative cost", NotifyCostUsage, PartParams, CostUsage{SessionID: "s"}, "cost_usd", -0.5, "/cost_usd", "minimum"},
		{"negative timeout", MethodHookDispatch, PartParams, HookDispatchParams{CallContext: minCallContext, Point: PointPostApply, Subscriber: "o", Mode: ModeObserve, Payload: HookPayload{Variant: PointPostApply, Plan: &Plan{}}}, "timeout_ms", -1, "/timeout_ms", "minimum"},
		{"attempt zero", MethodModelStream, PartParams, stream, "attempt", 0, "/attempt", "minimum"},
		{"bad purpose", MethodModelStream, PartParams, stream, "purpose", "chat", "/purpose", "value must be one of"},
		{"bad role", MethodModelStream, PartParams, stream, "messages/1/role", "human", "/messages/1/role", "value must be one of"},
		{"bad block type", MethodModelStream, PartParams, stream, "messages/2/content/0/type", "image", "/messages/2/content/0/type", "value must be one of"},
		{"stringified tool input", MethodModelStream, PartParams, stream, "messages/2/content/1/input", `{"path":"a.txt"}`, "/messages/2/content/1/input", "got string, want object"},
		{"tool_use without id", MethodModelStream, PartParams, stream, "messages/2/content/1/id", del, "/messages/2/content/1", "missing property 'id'"},
		{"missing required", MethodToolInvoke, PartParams, ToolInvokeParams{CallContext: minCallContext, CallID: "c", Attempt: 1}, "call_id", del, "/", "missing property 'call_id'"},
		{"missing nested required", MethodToolInvoke, PartParams, ToolInvokeParams{CallContext: minCallContext, CallID: "c", Attempt: 1}, "call_context/session_id", del, "/call_context", "missing property 'session_id'"},
		{"empty session id", MethodSessionCancel, PartParams, CancelParams{SessionID: "s"}, "session_id", "", "/session_id", "minLength"},
		{"bad stream event type", MethodModelStream, PartResult, streamResult, "events/0/type", "tool_call_start", "/events/0/type", "value must be one of"},
		{"tool_call without name", MethodModelStream, PartResult, streamResult, "events/0/name", del, "/events/0", "missing property 'name'"},
		{"bad model error category", MethodModelStream, PartResult, ModelStreamResult{Events: []StreamEvent{{Type: EventErrorSE, Error: &ModelError{Category: ModelErrOverloaded}}}}, "events/0/error/category", "server_error", "/events/0/error/category", "value must be one of"},
		{"bad tool error category", MethodToolInvoke, PartResult, ToolInvokeResult{Output: raw(`1`)}, "error_category", "crashed", "/error_category", "value must be one of"},
		{"bad status", MethodSessionRun, PartResult, RunSessionResult{SessionID: "s", Status: StatusCompleted}, "status", "done", "/status", "value must be one of"},
		{"bad hook point", MethodSessionRun, PartParams, run, "config/hooks/subscribers/0/point", "pre-model", "/config/hooks/subscribers/0/point", "value must be one of"},
		{"bad hook mode", MethodSessionRun, PartParams, run, "config/hooks/subscribers/1/mode", "mutate", "/config/hooks/subscribers/1/mode", "value must be one of"},
		{"bad tool kind", MethodSessionRun, PartParams, run, "config/tools/0/kind", "read_only", "/config/tools/0/kind", "value must be one of"},
		{"bad policy decision", MethodSessionRun, PartParams, run, "config/policy/rules/0/decision", "ALLOW", "/config/policy/rules/0/decision", "value must be one of"},
		{"bad outcome", MethodHookDispatch, PartResult, HookDispatchResult{Outcome: OutcomeAck}, "outcome", "ok", "/outcome", "value must be one of"},
		{"bad veto decision", MethodHookDispatch, PartResult, HookDispatchResult{Outcome: OutcomeVeto, Decision: DecisionAllow}, "decision", "allow", "/decision", "value must be one of"},
		{"veto without decision", MethodHookDispatch, PartResult, HookDispatchResult{Outcome: OutcomeVeto, Decision: DecisionAllow}, "decision", del, "/", "missing property 'decision'"},
		{"transform without payload", MethodHookDispatch, PartResult, HookDispatchResult{Outcome: OutcomeAck}, "outcome", OutcomeTransform, "/", "missing property 'payload'"},
		{"bad scope", MethodFrontendPermission, PartResult, PermissionResult{Decisions: []PlanDecision{{PlanItemID: "p", Decision: DecisionAllow, Scope: ScopeOnce}}}, "decisions/0/scope", "FOREVER", "/decisions/0/scope", "value must be one of"},
		{"bad span role", NotifyTraceSpan, PartParams, Span{TraceID: "t", SpanID: "s", SessionID: "x", Role: RoleTurn}, "role", "llm_call", "/role", "value must be one of"},
		{"empty event kind", NotifyEvent, PartParams, Event{SessionID: "s", Kind: EventLog}, "kind", "", "/kind", "minLength"},
		{"capabilities not a list", MethodInitialize, PartResult, InitializeResult{ProtocolVersion: Version}, "capabilities", "bound.max_cost_usd", "/capabilities", "got string, want null or array"},
		{"malformed capability", MethodInitialize, PartResult, InitializeResult{ProtocolVersion: Version, Capabilities: []string{"x"}}, "capabilities/0", "Bound Max Cost", "/capabilities/0", "does not match pattern"},
		{"wrong protocol version", MethodInitialize, PartResult, InitializeResult{ProtocolVersion: Version}, "protocol_version", "conform.wire/v2", "/protocol_version", "value must be"},
		{"bad reading", MethodInitialize, PartResult, InitializeResult{ProtocolVersion: Version, Readings: map[string]string{"depth.meaning": "tree"}}, "readings/depth.meaning", "up", "/readings/depth.meaning", "value must be one of"},
		{"non-numeric reading", MethodInitialize, PartResult, InitializeResult{ProtocolVersion: Version, Readings: map[string]string{"doom_loop.default_threshold": "3"}}, "readings/doom_loop.default_threshold", "three", "/readings/doom_loop.default_threshold", "does not match pattern"},
		{"no protocol versions", MethodInitialize, PartParams, InitializeParams{ProtocolVersions: []string{Version}}, "protocol_versions", nil, "/protocol_versions", "got null, want array"},
		{"content in an empty result", MethodSessionCancel, PartResult, Empty{}, "ok", true, "/", "additional properties 'ok' not allowed"},
		{"bad cancel id", NotifyCancelRequest, PartParams, CancelRequestParams{ID: raw(`1`)}, "id", map[string]any{}, "/id", "got object, want integer or string"},
		{"null params", MethodSessionRun, PartParams, nil, "", nil, "/", "got null, want object"},
		{"decide as the primary connection", MethodFrontendDecide, PartParams, FrontendDecideParams{SessionID: "s", Connection: "second"}, "connection", ConnectionPrimary, "/connection", "'not' failed"},
		{"rejection without a category", MethodFrontendDecide, PartResult, FrontendDecideResult{Results: []DecisionOutcome{{PlanItemID: "p", Accepted: true}}}, "results/0/accepted", false, "/results/0", "missing property 'category'"},
		{"interactive rejection without a category", MethodFrontendDecide, PartResult, FrontendDecideResult{InteractiveResults: []InteractiveOutcome{{CallID: "c", Accepted: true}}}, "interactive_results/0/accepted", false, "/interactive_results/0", "missing property 'category'"},
		{"interactive response without a call id", MethodFrontendDecide, PartParams, FrontendDecideParams{SessionID: "s", Connection: "second", InteractiveResponses: []InteractiveResponse{{CallID: "c"}}}, "interactive_responses/0/call_id", struct{}{}, "/interactive_responses/0", "missing property 'call_id'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, isDel := c.v.(struct{})
			body := mutated(t, c.value, c.path, c.v, isDel)
			err := Validate(c.method, c.part, body)
			if err == nil {
				t.Fatalf("%s %s accepted %s", c.method, c.part, body)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "at "+c.wantAt+": ") || !strings.Contains(msg, c.wantR) {
				t.Errorf("error %q\nwant it to start with %q and contain %q", msg, "at "+c.wantAt+": ", c.wantR)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans several lines: %q", msg)
			}
		})
	}
}

func TestValidateMisuse(t *testing.T) {
	cases := []struct {
		method, part string
		raw          string
		want         string
	}{
		{"session/runn", PartParams, `{}`, `unknown method "session/runn"`},
		{"", PartParams, `{}`, `unknown method ""`},
		{"trace/span", PartResult, `{}`, `"trace/span" is a notification: it has no result`},
		{"$/cancelRequest", PartResult, `{}`, `is a notification`},
		{"session/run", "error", `{}`, `unknown message part "error"`},
		{"session/cancel", PartParams, `{"session_id":`, `invalid JSON`},
		{"session/cancel", PartParams, `{"session_id":"a"} {}`, `invalid JSON`},
		{"session/cancel", PartParams, ``, `at /: got null, want object`},
	}
	for _, c := range cases {
		err := Validate(c.method, c.part, json.RawMessage(c.raw))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%q, %q, %q) = %v, want an error containing %q", c.method, c.part, c.raw, err, c.want)
		}
	}
	// An absent params member is fine where the part is empty.
	if err := Validate(MethodShutdown, PartParams, nil); err != nil {
		t.Errorf("shutdown without params: %v", err)
	}
	if err := Validate(MethodShutdown, PartParams, json.RawMessage(`{}`)); err != nil {
		t.Errorf("shutdown with {}: %v", err)
	}
}

// TestValidateConcurrent runs Validate from many goroutines at once, first
// use included, for the race detector.
func TestValidateConcurrent(t *testing.T) {
	body, _ := json.Marshal(typicalModelStreamParams())
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 20 {
				if err := Validate(MethodModelStream, PartParams, body); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkValidate(b *testing.B) {
	body, err := json.Marshal(typicalModelStreamParams())
	if err != nil {
		b.Fatal(err)
	}
	if err := Validate(MethodModelStream, PartParams, body); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(MethodModelStream, PartParams, body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestProtocolExamples validates every wire line of spec/PROTOCOL.md (the
// ```jsonl blocks), so the document's examples cannot drift from the
// schemas. A response is checked against the method of the request with the
// same id earlier in the same block.
func TestProtocolExamples(t *testing.T) {
	doc, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int]bool{
		CodeParseError: true, CodeInvalidRequest: true, CodeMethodNotFound: true, CodeInvalidParams: true,
		CodeInternal: true, CodeConfigRejected: true, CodeHookFailed: true, CodeProcessCrashed: true,
		CodeCancelled: true, CodeUnknownSession: true, CodeVersionMismatch: true,
	}
	covered := map[string]bool{}
	lines := strings.Split(string(doc), "\n")
	inBlock := false
	methodOf := map[string]string{}
	for n, line := range lines {
		switch {
		case strings.HasPrefix(line, "```jsonl"):
			inBlock, methodOf = true, map[string]string{}
			continue
		case strings.HasPrefix(line, "```"):
			inBlock = false
			continue
		case !inBlock || strings.TrimSpace(line) == "":
			continue
		}
		where := "PROTOCOL.md:" + strconv.Itoa(n+1)
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
			Result  json.RawMessage `json:"result"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			t.Errorf("%s: not a JSON-RPC line: %v", where, err)
			continue
		}
		if m.JSONRPC != "2.0" {
			t.Errorf("%s: jsonrpc is %q", where, m.JSONRPC)
		}
		switch {
		case m.Method != "":
			if m.ID != nil {
				methodOf[string(m.ID)] = m.Method
				if IsNotification(m.Method) {
					t.Errorf("%s: notification %s has an id", where, m.Method)
				}
			} else if !IsNotification(m.Method) {
				t.Errorf("%s: request %s has no id", where, m.Method)
			}
			if err := Validate(m.Method, PartParams, m.Params); err != nil {
				t.Errorf("%s: %s params: %v", where, m.Method, err)
			}
			covered[m.Method+" params"] = true
		case m.Error != nil:
			if !codes[m.Error.Code] {
				t.Errorf("%s: error code %d is not one of the protocol's", where, m.Error.Code)
			}
		default:
			method, ok := methodOf[string(m.ID)]
			if !ok {
				t.Errorf("%s: response to id %s without its request in the block", where, m.ID)
				continue
			}
			if err := Validate(method, PartResult, m.Result); err != nil {
				t.Errorf("%s: %s result: %v", where, method, err)
			}
			covered[method+" result"] = true
		}
	}
	for _, p := range allParts() {
		if !covered[p[0]+" "+p[1]] {
			t.Errorf("PROTOCOL.md has no example of %s %s", p[0], p[1])
		}
	}
}
