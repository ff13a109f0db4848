package wire

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The document and the schemas name the same things: PROTOCOL.md's tables
// are read and held against the schemas in both directions, so a field, an
// enum value, a reading or a method that one of them adds, drops or renames
// fails here. An outside author who reads only the document must not meet
// a field it does not describe, nor be told of one that does not exist.

// docTable is one Markdown table of PROTOCOL.md and where it stands.
type docTable struct {
	line    int      // 1-based line of the header
	heading string   // the nearest heading above it
	label   string   // the nearest line of prose above it ("Params:")
	header  []string // the header cells
	rows    [][]string
}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	typeLink   = regexp.MustCompile(`\[([A-Za-z]+)\]\(#[a-z0-9-]+\)`)
)

// readDoc returns the document's prose (code blocks left out, so that
// backticks pair up) and its tables.
func readDoc(t *testing.T) (string, []docTable) {
	t.Helper()
	raw, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	var prose strings.Builder
	var tables []docTable
	var heading, label string
	var cur *docTable
	inCode := false
	for n, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		prose.WriteString(line + "\n")
		if !strings.HasPrefix(line, "|") {
			cur = nil
			switch {
			case strings.HasPrefix(line, "#"):
				heading, label = strings.TrimSpace(strings.TrimLeft(line, "#")), ""
			case strings.TrimSpace(line) != "":
				label = strings.TrimSpace(line)
			}
			continue
		}
		cells := splitRow(line)
		switch {
		case cur == nil:
			tables = append(tables, docTable{line: n + 1, heading: heading, label: label, header: cells})
			cur = &tables[len(tables)-1]
		case strings.Trim(strings.Join(cells, ""), "-: ") == "":
			// the separator row
		default:
			cur.rows = append(cur.rows, cells)
		}
	}
	return prose.String(), tables
}

// splitRow splits a table row into trimmed cells; an escaped \| stays in
// its cell.
func splitRow(line string) []string {
	line = strings.ReplaceAll(strings.TrimSpace(line), `\|`, "\x00")
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(strings.ReplaceAll(p, "\x00", `\|`))
	}
	return parts
}

// firstTick is the first backticked name of a cell ("" if none).
func firstTick(cell string) string {
	if m := backticked.FindStringSubmatch(cell); m != nil {
		return m[1]
	}
	return ""
}

// schemaDocs loads defs.json and every message part's schema.
func schemaDocs(t *testing.T) (defs map[string]any, parts map[string]map[string]any) {
	t.Helper()
	defs = readSchema(t, "defs.json")["$defs"].(map[string]any)
	parts = map[string]map[string]any{}
	for _, p := range allParts() {
		parts[p[0]+" "+p[1]] = readSchema(t, SchemaFile(p[0], p[1]))
	}
	return defs, parts
}

// objectNodes lists every schema object that has properties, keyed by
// where a table describes it: "def Name", "method part", or either followed
// by /field[] for an inline object in an array field.
func objectNodes(defs map[string]any, parts map[string]map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	var visit func(key string, node map[string]any)
	visit = func(key string, node map[string]any) {
		props, ok := node["properties"].(map[string]any)
		if !ok {
			return
		}
		out[key] = node
		for name, p := range props {
			pm, _ := p.(map[string]any)
			if items, ok := pm["items"].(map[string]any); ok {
				visit(key+"/"+name+"[]", items)
			}
			visit(key+"/"+name, pm)
		}
	}
	for name, d := range defs {
		visit("def "+name, d.(map[string]any))
	}
	for key, s := range parts {
		visit(key, s)
	}
	return out
}

// tableTarget says which schema object a field table describes.
func tableTarget(tb docTable, defs map[string]any) (string, bool) {
	words := strings.Fields(strings.ReplaceAll(tb.heading, "`", ""))
	if len(words) == 0 {
		return "", false
	}
	last := words[len(words)-1]
	if _, ok := defs[last]; ok && !strings.Contains(last, "/") {
		return "def " + last, true
	}
	if tb.heading == "17.2 Config" {
		return "def DFConfig", true
	}
	if !slices.Contains(Methods(), last) {
		return "", false
	}
	switch tb.label {
	case "Params:":
		return last + " " + PartParams, true
	case "Result:":
		return last + " " + PartResult, true
	case "Each interactive response:":
		return last + " " + PartParams + "/interactive_responses[]", true
	case "Each outcome:":
		return last + " " + PartResult + "/results[]", true
	case "Each interactive outcome:":
		return last + " " + PartResult + "/interactive_results[]", true
	}
	if IsNotification(last) {
		return last + " " + PartParams, true
	}
	return "", false
}

// refName is the $defs name a property refers to, directly or through its
// items ("" for an inline type).
func refName(p map[string]any) string {
	for _, node := range []any{p, p["items"]} {
		if m, ok := node.(map[string]any); ok {
			if r, ok := m["$ref"].(string); ok {
				_, name, _ := strings.Cut(r, "#/$defs/")
				return name
			}
		}
	}
	return ""
}

func TestProtocolDocFields(t *testing.T) {
	_, tables := readDoc(t)
	defs, parts := schemaDocs(t)
	nodes := objectNodes(defs, parts)
	described := map[string]int{}
	for _, tb := range tables {
		if len(tb.header) == 0 || tb.header[0] != "field" {
			continue
		}
		where := fmt.Sprintf("PROTOCOL.md:%d (%s)", tb.line, tb.heading)
		key, ok := tableTarget(tb, defs)
		if !ok {
			t.Errorf("%s: a field table that names no schema object (no $defs name or method in its heading, or an unknown label %q)", where, tb.label)
			continue
		}
		node := nodes[key]
		if node == nil {
			t.Errorf("%s: describes %s, which the schemas do not have as an object", where, key)
			continue
		}
		reqCol := slices.Index(tb.header, "required")
		if reqCol >= 0 { // a table without the required column is a summary of one with it
			if prev, dup := described[key]; dup {
				t.Errorf("%s: %s is described twice (first at line %d)", where, key, prev)
			}
			described[key] = tb.line
		}
		props := node["properties"].(map[string]any)
		typeCol := slices.Index(tb.header, "type")
		var docFields, docRequired []string
		for _, r := range tb.rows {
			name := firstTick(r[0])
			if name == "" {
				t.Errorf("%s: row %q names no field", where, r[0])
				continue
			}
			docFields = append(docFields, name)
			p, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s: field %q is not in the schema of %s", where, name, key)
				continue
			}
			if reqCol >= 0 && reqCol < len(r) && r[reqCol] == "yes" {
				docRequired = append(docRequired, name)
			}
			if typeCol >= 0 && typeCol < len(r) {
				if m := typeLink.FindStringSubmatch(r[typeCol]); m != nil && m[1] != refName(p) {
					t.Errorf("%s: field %q is typed [%s] in the document, the schema refers to %q", where, name, m[1], refName(p))
				}
			}
		}
		for name := range props {
			if !slices.Contains(docFields, name) {
				t.Errorf("%s: the schema of %s has field %q, the table does not", where, key, name)
			}
		}
		if reqCol < 0 {
			continue
		}
		var schemaRequired []string
		reqs, _ := node["required"].([]any)
		for _, r := range reqs {
			schemaRequired = append(schemaRequired, r.(string))
		}
		sort.Strings(docRequired)
		sort.Strings(schemaRequired)
		if !slices.Equal(docRequired, schemaRequired) {
			t.Errorf("%s: the table marks %v required, the schema of %s requires %v", where, docRequired, key, schemaRequired)
		}
	}
	var missing []string
	for key := range nodes {
		if _, ok := described[key]; !ok {
			missing = append(missing, key)
		}
	}
	sort.Strings(missing)
	for _, key := range missing {
		t.Errorf("PROTOCOL.md has no field table for %s", key)
	}
}

// enumValues collects every string an enum or const of the schemas allows.
func enumValues(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			switch k {
			case "enum":
				for _, e := range sub.([]any) {
					if s, ok := e.(string); ok {
						into[s] = true
					}
				}
			case "const":
				if s, ok := sub.(string); ok {
					into[s] = true
				}
			}
			enumValues(sub, into)
		}
	case []any:
		for _, e := range x {
			enumValues(e, into)
		}
	}
}

func TestProtocolDocEnums(t *testing.T) {
	doc, tables := readDoc(t)
	defs, parts := schemaDocs(t)
	ticked := map[string]bool{}
	for _, m := range backticked.FindAllStringSubmatch(doc, -1) {
		ticked[m[1]] = true
	}
	all := map[string]bool{}
	enumValues(defs, all)
	for _, p := range parts {
		enumValues(p, all)
	}
	for v := range all {
		if v != "" && !ticked[v] && !ticked[`"`+v+`"`] {
			t.Errorf("the schemas allow the value %q, PROTOCOL.md never names it", v)
		}
	}
	found := false
	for _, tb := range tables {
		if len(tb.header) < 2 || tb.header[0] != "name" || tb.header[1] != "values" {
			continue
		}
		found = true
		for _, r := range tb.rows {
			name := firstTick(r[0])
			def, _ := defs[name].(map[string]any)
			enum, _ := def["enum"].([]any)
			if enum == nil {
				t.Errorf("PROTOCOL.md:%d: %q is no enum of defs.json", tb.line, name)
				continue
			}
			var want, got []string
			for _, e := range enum {
				want = append(want, fmt.Sprint(e))
			}
			for _, m := range backticked.FindAllStringSubmatch(r[1], -1) {
				got = append(got, strings.Trim(m[1], `"`))
			}
			sort.Strings(want)
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Errorf("PROTOCOL.md:%d: enum %s lists %v, the schema allows %v", tb.line, name, got, want)
			}
		}
	}
	if !found {
		t.Fatal("PROTOCOL.md has no enum table (| name | values | used for |)")
	}
}

// TestProtocolDocReadings: the §15 table of readings and the schema's
// Readings keys are the same set.
func TestProtocolDocReadings(t *testing.T) {
	_, tables := readDoc(t)
	defs, _ := schemaDocs(t)
	props := defs["Readings"].(map[string]any)["properties"].(map[string]any)
	var schemaKeys, docKeys []string
	for k := range props {
		schemaKeys = append(schemaKeys, k)
	}
	for _, tb := range tables {
		if len(tb.header) > 0 && tb.header[0] == "key" {
			for _, r := range tb.rows {
				docKeys = append(docKeys, firstTick(r[0]))
			}
		}
	}
	sort.Strings(schemaKeys)
	sort.Strings(docKeys)
	if !slices.Equal(docKeys, schemaKeys) {
		t.Errorf("§15 lists the readings %v;\nthe Readings schema has %v", docKeys, schemaKeys)
	}
}

// methodShaped matches a backticked name that looks like a method.
var methodShaped = regexp.MustCompile(`^(\$/[a-zA-Z]+|[a-z]+/[a-z][a-zA-Z]*)$`)

// TestProtocolDocMethods: every method is named in the document, and every
// method the document names exists (Go package paths aside).
func TestProtocolDocMethods(t *testing.T) {
	doc, _ := readDoc(t)
	named := map[string]bool{}
	for _, m := range backticked.FindAllStringSubmatch(doc, -1) {
		named[m[1]] = true
	}
	packages := []string{"encoding/", "spec/", "harness/", "fakes/", "refkernel/", "examples/", "kernelkit/", "cmd/", "internal/"}
	for name := range named {
		if !methodShaped.MatchString(name) {
			continue
		}
		if slices.ContainsFunc(packages, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		if !slices.Contains(Methods(), name) {
			t.Errorf("PROTOCOL.md names the method %q, the protocol has no such method", name)
		}
	}
	for _, m := range Methods() {
		if !named[m] {
			t.Errorf("PROTOCOL.md never names the method %q", m)
		}
	}
}
