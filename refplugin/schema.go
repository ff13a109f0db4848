package refplugin

import (
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	configv1 "github.com/agentconform/conform/api/gen/pluggableharness/config/v1"
	schemav1 "github.com/agentconform/conform/api/gen/pluggableharness/schema/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
)

// Operation names.
const (
	OpLookup = "lookup"
	OpSearch = "search"
	OpWrite  = "write_note"
	OpAsk    = "ask"
	OpExec   = "exec"
)

func obj(required []string, props map[string]*schemav1.Schema) *schemav1.Schema {
	return &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_OBJECT, Properties: props, Required: required}
}

func str(desc string, enum ...string) *schemav1.Schema {
	return &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_STRING, Description: desc, EnumValues: enum}
}

func num(desc string) *schemav1.Schema {
	return &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_NUMBER, Description: desc}
}

func boolean(desc string) *schemav1.Schema {
	return &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_BOOLEAN, Description: desc}
}

func arr(desc string, items *schemav1.Schema) *schemav1.Schema {
	return &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_ARRAY, Description: desc, Items: items}
}

func timeout(f Faults, d time.Duration) *durationpb.Duration {
	if f.NoDefaultTimeout {
		return nil
	}
	return durationpb.New(d)
}

// tools is what GetSchema declares; n counts GetSchema calls, for the
// SchemaDrifts fault.
func tools(f Faults, n int) []*toolv1.ToolSchema {
	readOnly := toolv1.RiskClass_RISK_CLASS_READ_ONLY
	hit := obj([]string{"key", "value"}, map[string]*schemav1.Schema{"key": str("entry key"), "value": str("entry value")})
	lookup := &toolv1.ToolSchema{
		Name: OpLookup, Kind: toolv1.ToolKind_TOOL_KIND_DATA_SOURCE, Risk: readOnly,
		Description: "Look one key up in the built-in table.",
		InputSchema: obj([]string{"key"}, map[string]*schemav1.Schema{
			"key":  str("the key to look up"),
			"case": str("how to fold the key first", "as_is", "upper", "lower"),
		}),
		OutputSchema: obj([]string{"key", "found"}, map[string]*schemav1.Schema{
			"key": str("the key looked up"), "found": boolean("whether it is in the table"), "value": str("its value"),
		}),
		Concurrency:    &toolv1.ConcurrencySpec{Safe: true},
		DefaultTimeout: timeout(f, 5*time.Second),
		Idempotent:     true,
	}
	search := &toolv1.ToolSchema{
		Name: OpSearch, Kind: toolv1.ToolKind_TOOL_KIND_DATA_SOURCE, Risk: readOnly,
		Description: "Find the table entries whose key or value contains the query, streaming each hit.",
		InputSchema: obj([]string{"query"}, map[string]*schemav1.Schema{
			"query": str("text to look for; empty matches everything"),
			"in":    arr("where to look (default both)", str("a field", "key", "value")),
		}),
		OutputSchema:   obj([]string{"hits"}, map[string]*schemav1.Schema{"hits": arr("the matching entries", hit)}),
		Streaming:      true,
		Concurrency:    &toolv1.ConcurrencySpec{Safe: true},
		DefaultTimeout: timeout(f, 5*time.Second),
		Idempotent:     true,
	}
	write := &toolv1.ToolSchema{
		Name: OpWrite, Kind: toolv1.ToolKind_TOOL_KIND_RESOURCE, Risk: toolv1.RiskClass_RISK_CLASS_LOW,
		Description: "Write (or append to) a note file under the notes folder of the working directory.",
		InputSchema: obj([]string{"name", "text"}, map[string]*schemav1.Schema{
			"name": str("the note's name"), "text": str("what to write"), "append": boolean("append instead of replacing"),
		}),
		OutputSchema: obj([]string{"path", "bytes"}, map[string]*schemav1.Schema{
			"path": str("the note file, relative to the working directory"), "bytes": num("the file's size after the write"),
		}),
		Streaming:      true,
		Concurrency:    &toolv1.ConcurrencySpec{Safe: true, KeyFields: []string{"name"}},
		DefaultTimeout: timeout(f, 10*time.Second),
	}
	ask := &toolv1.ToolSchema{
		Name: OpAsk, Kind: toolv1.ToolKind_TOOL_KIND_INTERACTIVE, Risk: readOnly,
		Description: "Ask the user a question and return the answer.",
		InputSchema: obj([]string{"question"}, map[string]*schemav1.Schema{
			"question": str("what to ask"), "choices": arr("answers to offer", str("one answer")),
		}),
		OutputSchema:   obj([]string{"answer"}, map[string]*schemav1.Schema{"answer": str("the user's answer")}),
		DefaultTimeout: timeout(f, 10*time.Minute),
	}
	words := str("one word")
	execOp := &toolv1.ToolSchema{
		Name: OpExec, Kind: toolv1.ToolKind_TOOL_KIND_RESOURCE, Risk: toolv1.RiskClass_RISK_CLASS_HIGH,
		Description: "Run a child process that prints the words, one a line, streaming its output.",
		InputSchema: obj([]string{"words"}, map[string]*schemav1.Schema{
			"words":  arr("what the child prints", words),
			"stream": str("where the child prints (default stdout)", "stdout", "stderr"),
		}),
		OutputSchema: obj([]string{"exit_code", "lines"}, map[string]*schemav1.Schema{
			"exit_code": num("the child's exit code"), "lines": num("how many lines it printed"),
		}),
		Streaming:      true,
		Concurrency:    &toolv1.ConcurrencySpec{Safe: false},
		DefaultTimeout: timeout(f, 30*time.Second),
	}
	switch {
	case f.ResourceReadOnly:
		write.Risk = readOnly
	case f.InteractiveConcurrency:
		ask.Concurrency = &toolv1.ConcurrencySpec{Safe: false}
	case f.DuplicateName:
		search.Name = OpLookup
	case f.KindUnspecified:
		lookup.Kind = toolv1.ToolKind_TOOL_KIND_UNSPECIFIED
	case f.EmptyDescription:
		search.Description = ""
	case f.ArrayWithoutItems:
		execOp.InputSchema.Properties["words"].Items = nil
	case f.ResourceNoConcurrency:
		write.Concurrency = nil
	case f.UnknownKeyField:
		write.Concurrency.KeyFields = []string{"filename"}
	case f.SchemaDrifts:
		lookup.Description += " (answer " + strconv.Itoa(n) + ")"
	}
	return []*toolv1.ToolSchema{lookup, search, write, ask, execOp}
}

// configSchema declares the plugin's configuration: a secret it must be
// given, and two optional settings.
func configSchema() *configv1.ConfigSchema {
	return &configv1.ConfigSchema{Attributes: []*configv1.ConfigAttribute{
		{Name: "token", Type: configv1.AttrType_ATTR_TYPE_STRING, Required: true, Sensitive: true, Description: "an API token (the plugin never shows it)"},
		{Name: "notes_dir", Type: configv1.AttrType_ATTR_TYPE_STRING, Description: "folder under the working directory for notes (default notes)"},
		{Name: "answer", Type: configv1.AttrType_ATTR_TYPE_STRING, Description: "the answer ask gives when offered no choices (default yes)"},
	}}
}

// hookPoints are the points the subscriber answers: all eight.
func hookPoints() []commonv1.HookPoint {
	var out []commonv1.HookPoint
	for p := commonv1.HookPoint_HOOK_POINT_SESSION_START; p <= commonv1.HookPoint_HOOK_POINT_SESSION_END; p++ {
		out = append(out, p)
	}
	return out
}
