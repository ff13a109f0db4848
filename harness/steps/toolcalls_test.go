package steps

import (
	"encoding/json"
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

// A tool is offered as declared: its description always, its schema when
// one is sent; a tool that declares none may be offered with a schema that
// asks nothing of the arguments, and a bridged agent's schema, which comes
// back through its dialect, is not judged.
func TestOfferedAsDeclared(t *testing.T) {
	object := map[string]any{"type": "object"}
	named := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}
	cfg := wire.SessionConfig{Tools: []wire.ToolSchema{
		{Name: "read", Description: "fake read", InputSchema: named},
		{Name: "clock", Description: "fake clock"},
	}}
	wireKernel := &Scenario{Cfg: cfg}
	bridged := &Scenario{Cfg: cfg, env: &Env{Bridged: true}}
	for name, c := range map[string]struct {
		s     *Scenario
		spec  wire.ToolSpec
		wrong bool
	}{
		"as declared":                       {wireKernel, wire.ToolSpec{Name: "read", Description: "fake read", InputSchema: named}, false},
		"schema left out":                   {wireKernel, wire.ToolSpec{Name: "read", Description: "fake read"}, false},
		"description blanked":               {wireKernel, wire.ToolSpec{Name: "read", Description: "", InputSchema: named}, true},
		"another schema":                    {wireKernel, wire.ToolSpec{Name: "read", Description: "fake read", InputSchema: object}, true},
		"not a tool of the session":         {wireKernel, wire.ToolSpec{Name: "write", Description: "fake read"}, true},
		"no schema declared, none sent":     {wireKernel, wire.ToolSpec{Name: "clock", Description: "fake clock"}, false},
		"no schema declared, an object":     {wireKernel, wire.ToolSpec{Name: "clock", Description: "fake clock", InputSchema: map[string]any{"type": "object", "properties": map[string]any{}}}, false},
		"no schema declared, one invented":  {wireKernel, wire.ToolSpec{Name: "clock", Description: "fake clock", InputSchema: named}, true},
		"bridged, schema in another form":   {bridged, wire.ToolSpec{Name: "read", Description: "fake read", InputSchema: map[string]any{"type": "OBJECT"}}, false},
		"bridged, description still judged": {bridged, wire.ToolSpec{Name: "read", Description: "Read", InputSchema: named}, true},
		"bridged, description added to":     {bridged, wire.ToolSpec{Name: "read", Description: "fake read (MCP server conform)", InputSchema: named}, false},
	} {
		if why := c.s.offeredWrong(c.spec); (why != "") != c.wrong {
			t.Errorf("%s: offeredWrong = %q, want wrong %v", name, why, c.wrong)
		}
	}
}

// No input, null and {} are one input: a call without arguments.
func TestSameInput(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"", "{}", true},
		{"", "null", true},
		{`{}`, `null`, true},
		{`{"path":"a"}`, `{ "path": "a" }`, true},
		{`{"path":"a"}`, `null`, false},
		{`{"path":"a"}`, ``, false},
		{`{"path":"a"}`, `{"path":"b"}`, false},
		{`{"zone":"UTC","null":null}`, `{"null":null,"zone":"UTC"}`, true},
	} {
		if got := sameInput(json.RawMessage(c.a), json.RawMessage(c.b)); got != c.same {
			t.Errorf("sameInput(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// Only the harness's own bridge, with an agent whose dialect has no error
// flag on a tool result, leaves the flag unjudged.
func TestBridgedWithoutErrorFlag(t *testing.T) {
	env := func(bridged bool, dialect string) *Scenario {
		return &Scenario{env: &Env{Bridged: bridged, Info: wire.InitializeResult{Readings: map[string]string{BridgeDialect: dialect}}}}
	}
	for name, c := range map[string]struct {
		s    *Scenario
		want bool
	}{
		"bridged, openai-chat":      {env(true, "openai-chat"), true},
		"bridged, openai-responses": {env(true, "openai-responses"), true},
		"bridged, anthropic":        {env(true, "anthropic"), false},
		"bridged, gemini":           {env(true, "gemini"), false},
		"a wire kernel declaring the reading escapes nothing": {env(false, "openai-chat"), false},
		"no environment": {&Scenario{}, false},
	} {
		if got := c.s.bridgedWithoutErrorFlag(); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}
