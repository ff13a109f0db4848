package wire

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The JSON Schemas (draft 2020-12) of every message part. They are the
// machine-readable truth of conform.wire/v1; the Go types in this package
// produce exactly what they accept (examples_test.go keeps both in step).
//
//go:embed schemas/*.json
var schemaFS embed.FS

// SchemaBase is the base URI of the embedded schemas: every file's $id is
// SchemaBase followed by its file name, so "defs.json#/$defs/X" resolves.
const SchemaBase = "https://conform.dev/wire/v1/"

// Part names accepted by Validate.
const (
	PartParams = "params"
	PartResult = "result"
)

// notifications have params only.
var notifications = map[string]bool{
	NotifyTraceSpan:     true,
	NotifyCostUsage:     true,
	NotifySessionMeta:   true,
	NotifyEvent:         true,
	NotifyCancelRequest: true,
}

// requests lists every request method in both directions.
var requests = []string{
	MethodInitialize, MethodSessionRun, MethodSessionCancel, MethodSessionSpawn,
	MethodSessionContinue, MethodShutdown,
	MethodContextAssemble, MethodHookDispatch, MethodModelStream, MethodToolInvoke,
	MethodToolPreview, MethodFrontendPermission, MethodFrontendInteractive,
	MethodMemoryWrite, MethodFrontendConfirm,
	MethodFrontendDecide,
}

// Methods lists every method and notification of the protocol, sorted.
func Methods() []string {
	out := make([]string, 0, len(requests)+len(notifications))
	out = append(out, requests...)
	for m := range notifications {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// IsNotification reports whether method is a notification (it has params
// and no result).
func IsNotification(method string) bool { return notifications[method] }

// SchemaFile is the file name under schemas/ of one message part:
// "session/run", "params" → "session.run.params.json";
// "$/cancelRequest" → "cancelRequest.params.json".
func SchemaFile(method, part string) string {
	return strings.ReplaceAll(strings.TrimPrefix(method, "$/"), "/", ".") + "." + part + ".json"
}

var (
	compileOnce sync.Once
	parts       map[string]string    // key: method + " " + part → its schema file
	fast        map[string]*fastNode // the same parts' fast path (fastschema.go)
	printer     = message.NewPrinter(language.English)

	// The general validator of each part, compiled when first needed: the
	// fast path judges every valid part, so a session of valid messages
	// never needs it, and compiling all of them was a sixth of a short
	// conform run's CPU, in each of a mutation campaign's thousands of
	// runs (issue 25).
	generalMu sync.Mutex
	general   *jsonschema.Compiler
	compiled  = map[string]*jsonschema.Schema{}
)

// schemaOf is the general validator of a part, compiled once; ok is false
// for a part the wire does not have.
func schemaOf(key string) (*jsonschema.Schema, bool) {
	file, ok := parts[key]
	if !ok {
		return nil, false
	}
	generalMu.Lock()
	defer generalMu.Unlock()
	if sch, ok := compiled[key]; ok {
		return sch, true
	}
	sch, err := general.Compile(SchemaBase + file)
	if err != nil {
		// TestSchemasCompile compiles every part: a build defect.
		panic(fmt.Sprintf("wire: compiling schema of %s: %v", key, err))
	}
	compiled[key] = sch
	return sch, true
}

func schemaKey(method, part string) string { return method + " " + part }

// loadSchemas reads every embedded schema and compiles the fast path of
// every part (the general validators: schemaOf). A failure means the
// embedded files are broken, a build defect that TestSchemasCompile
// catches, so it panics.
func loadSchemas() {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	docs := map[string]any{}
	entries, err := schemaFS.ReadDir("schemas")
	if err != nil {
		panic("wire: reading embedded schemas: " + err.Error())
	}
	for _, e := range entries {
		data, err := schemaFS.ReadFile(path.Join("schemas", e.Name()))
		if err != nil {
			panic("wire: reading embedded schema: " + err.Error())
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			panic(fmt.Sprintf("wire: schema %s is not JSON: %v", e.Name(), err))
		}
		docs[SchemaBase+e.Name()] = doc
		if err := c.AddResource(SchemaBase+e.Name(), doc); err != nil {
			panic(fmt.Sprintf("wire: schema %s: %v", e.Name(), err))
		}
	}
	files := map[string]string{}
	for _, method := range Methods() {
		ps := []string{PartParams, PartResult}
		if notifications[method] {
			ps = ps[:1]
		}
		for _, part := range ps {
			files[schemaKey(method, part)] = SchemaFile(method, part)
		}
	}
	general, parts = c, files
	fast = compileFast(docs, files)
}

// Validate checks one message part against its schema. method is a method
// or notification name ("model/stream", "trace/span"), part is "params" or
// "result", and raw is the part as received (empty means absent, validated
// as null). The error is short and names the failing JSON location and the
// reason, e.g. `at /config/bounds/max_turns: got string, want integer`.
func Validate(method string, part string, raw json.RawMessage) error {
	compileOnce.Do(loadSchemas)
	switch part {
	case PartParams, PartResult:
	default:
		return fmt.Errorf("unknown message part %q (want params or result)", part)
	}
	key := schemaKey(method, part)
	if _, ok := parts[key]; !ok {
		if notifications[method] {
			return fmt.Errorf("%q is a notification: it has no result", method)
		}
		return fmt.Errorf("unknown method %q", method)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	doc, err := decodeDoc(raw)
	if err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	return validateDoc(key, doc)
}

// validateDoc validates a decoded document: the fast path first, and the
// general validator for what the fast path refuses (or cannot judge).
func validateDoc(key string, doc any) error {
	if f := fast[key]; f != nil && f.valid(doc) {
		return nil
	}
	sch, _ := schemaOf(key)
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return errors.New(describe(ve))
		}
		return err
	}
	return nil
}

// describe renders the first innermost cause of a validation error as
// "at <JSON pointer>: <reason>".
func describe(ve *jsonschema.ValidationError) string {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	loc := "/"
	if len(ve.InstanceLocation) > 0 {
		var sb strings.Builder
		for _, tok := range ve.InstanceLocation {
			sb.WriteByte('/')
			sb.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
		}
		loc = sb.String()
	}
	return "at " + loc + ": " + ve.ErrorKind.LocalizedString(printer)
}
