// Package nodekit_test checks the Node adapter kit from Go, where conform's
// schema validator is: the TypeScript message types of wire.d.ts are held
// against spec/wire's JSON Schemas (no Node needed); what the kit sends in
// its own self-test is validated message by message; the toy kernel on the
// kit runs the suite's turn-order scenarios; and, after `npm ci` here, tsc
// type-checks the kit. The tests that need node skip without it.
package nodekit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentconform/conform/internal/kittranscript"
)

func node(t *testing.T) string {
	t.Helper()
	n, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: the Node kit's runtime tests need Node 20 or newer")
	}
	return n
}

func here(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// schemaObject is the part of a JSON Schema the types are held against.
type schemaObject struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
	Enum       []string                   `json:"enum"`
}

func loadSchemas(t *testing.T) (files map[string]schemaObject, defs map[string]schemaObject) {
	t.Helper()
	dir := filepath.Join(here(t), "..", "..", "spec", "wire", "schemas")
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no schemas in %s: %v", dir, err)
	}
	files = map[string]schemaObject{}
	for _, n := range names {
		raw, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(n) == "defs.json" {
			var d struct {
				Defs map[string]schemaObject `json:"$defs"`
			}
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			defs = d.Defs
			continue
		}
		var s schemaObject
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(n)] = s
	}
	return files, defs
}

var (
	tagRe   = regexp.MustCompile(`/\*\* @schema (\S+) \*/\s*export (type|interface) (\w+)\s*`)
	fieldRe = regexp.MustCompile(`^\s*("[^"]+"|\w+)(\?)?:`)
	litRe   = regexp.MustCompile(`"([^"]*)"`)
)

// tsType is one tagged declaration of wire.d.ts: its fields (name →
// optional) for an interface, its string literals for a union.
type tsType struct {
	name, schema string
	fields       map[string]bool
	literals     []string
}

func parseTypes(t *testing.T, src string) []tsType {
	t.Helper()
	var out []tsType
	for _, m := range tagRe.FindAllStringSubmatchIndex(src, -1) {
		d := tsType{schema: src[m[2]:m[3]], name: src[m[6]:m[7]]}
		rest := src[m[1]:]
		if src[m[4]:m[5]] == "type" {
			end := strings.Index(rest, ";")
			for _, l := range litRe.FindAllStringSubmatch(rest[strings.Index(rest, "=")+1:end], -1) {
				d.literals = append(d.literals, l[1])
			}
			out = append(out, d)
			continue
		}
		d.fields = map[string]bool{}
		depth, start := 0, 0
		for i, r := range rest {
			switch r {
			case '{':
				depth++
				if depth == 1 {
					start = i + 1
				}
			case ';', '}':
				if depth == 1 {
					if f := fieldRe.FindStringSubmatch(rest[start:i]); f != nil {
						d.fields[strings.Trim(f[1], `"`)] = f[2] == "?"
					}
					start = i + 1
				}
				if r == '}' {
					depth--
				}
			}
			if depth == 0 && r == '}' {
				break
			}
		}
		out = append(out, d)
	}
	return out
}

// TestWireTypesMatchSchemas holds every @schema-tagged type of wire.d.ts
// against its schema: the same fields with the same required ones, the
// same enum values; and every message part and shared object or enum of
// the schemas has its type.
func TestWireTypesMatchSchemas(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(here(t), "wire.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	files, defs := loadSchemas(t)
	types := parseTypes(t, string(src))
	covered := map[string]bool{}
	for _, d := range types {
		covered[d.schema] = true
		var s schemaObject
		var ok bool
		if name, found := strings.CutPrefix(d.schema, "defs.json#/$defs/"); found {
			s, ok = defs[name]
		} else {
			s, ok = files[d.schema]
		}
		if !ok {
			t.Errorf("%s: @schema %s names no schema", d.name, d.schema)
			continue
		}
		if d.fields == nil {
			if strings.Join(d.literals, "|") != strings.Join(s.Enum, "|") {
				t.Errorf("%s: values %v, schema %s has %v", d.name, d.literals, d.schema, s.Enum)
			}
			continue
		}
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		for f, optional := range d.fields {
			if _, ok := s.Properties[f]; !ok {
				t.Errorf("%s.%s: not a field of %s", d.name, f, d.schema)
			} else if optional == required[f] {
				t.Errorf("%s.%s: optional=%v, but the schema %s says required=%v", d.name, f, optional, d.schema, required[f])
			}
		}
		for f := range s.Properties {
			if _, ok := d.fields[f]; !ok {
				t.Errorf("%s: lacks field %s of %s", d.name, f, d.schema)
			}
		}
	}
	for name, s := range files {
		if len(s.Properties) > 0 && !covered[name] {
			t.Errorf("no type of wire.d.ts is tagged @schema %s", name)
		}
	}
	for name, s := range defs {
		if (len(s.Properties) > 0 || len(s.Enum) > 0) && !covered["defs.json#/$defs/"+name] {
			t.Errorf("no type of wire.d.ts is tagged @schema defs.json#/$defs/%s", name)
		}
	}
	// The check can fail: a type that lost a required field is caught.
	broken := parseTypes(t, "/** @schema defs.json#/$defs/Peer */\nexport interface Peer { name: string; version?: string }")
	if len(broken) != 1 || !broken[0].fields["version"] {
		t.Errorf("the parser misread a broken Peer: %+v", broken)
	}
	if len(types) < 60 {
		t.Errorf("only %d tagged types parsed from wire.d.ts", len(types))
	}
}

// TestKitMessagesValidate runs the kit's self-test with a transcript and
// validates every message the kit sent against the protocol's schemas.
func TestKitMessagesValidate(t *testing.T) {
	n := node(t)
	transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
	cmd := exec.Command(n, "--test", "kit.test.mjs")
	cmd.Dir = here(t)
	cmd.Env = append(os.Environ(), "CONFORM_KIT_TRANSCRIPT="+transcript)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the kit's self-test failed: %v\n%s", err, out)
	}
	f, err := os.Open(transcript)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := kittranscript.Check(f)
	if err != nil {
		t.Fatal(err)
	}
	// Every kind of message the kit sends was exercised.
	res.Verify(t, []string{
		"initialize result", "initialize error", "session/run result", "session/run error", "session/cancel result",
		"session/cancel error", "session/continue error", "session/spawn error", "shutdown result", "frontend/decide result",
		"context/assemble params", "hook/dispatch params", "model/stream params", "tool/invoke params",
		"frontend/interactive params", "session/meta params", "cost/usage params", "event params", "$/cancelRequest params",
	})
}

// TestToyKernelTurnOrder is `conform run --kernel "node toy.mjs" --tags
// @TA-01`: the step order passes; the reads' overlap (TA-14, a scenario of
// the same tag) fails, because the toy runs its calls one at a time.
func TestToyKernelTurnOrder(t *testing.T) {
	n := node(t)
	kittranscript.ToyTurnOrder(t, []string{n, filepath.Join(here(t), "toy.mjs")})
}

// TestTypeCheck runs tsc over the kit where `npm ci` has installed it.
func TestTypeCheck(t *testing.T) {
	n := node(t)
	tsc := filepath.Join(here(t), "node_modules", "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Skip("typescript not installed: run `npm ci` in examples/node-kit to type-check the kit")
	}
	cmd := exec.Command(n, tsc, "-p", ".")
	cmd.Dir = here(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}
