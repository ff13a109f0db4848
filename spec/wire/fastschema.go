package wire

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A fast path for Validate (issue 25: validated wire round trips cost about
// three times unvalidated ones, most of it in the general validator's
// bookkeeping). The embedded schemas use a small set of keywords; each part's
// schema is compiled once into a tree of plain checks over the decoded
// document. A part it accepts is valid; a part it refuses is handed to the
// general validator, which stays the one judge of what is wrong and how the
// error reads. So the fast path can only ever be too strict, never too
// lenient, and TestFastSchemaAgrees holds it to the general validator on
// every example and on mutated documents. A schema with a keyword this file
// does not know is not compiled: its parts go to the general validator
// alone.

type fastNode struct {
	boolean   *bool // a boolean schema (true or false)
	types     []string
	props     map[string]*fastNode
	required  []string
	addl      *fastNode // additionalProperties; nil: none
	enum      []any
	hasEnum   bool
	konst     any
	hasConst  bool
	items     *fastNode
	ref       *fastNode
	allOf     []*fastNode
	not       *fastNode
	ifN       *fastNode
	thenN     *fastNode
	minimum   *big.Rat
	pattern   *regexp.Regexp
	propNames *fastNode
	minLength int // -1: none
	minItems  int // -1: none
	unique    bool
}

// annotations are keywords that assert nothing (format included: the
// general validator is not told to assert formats).
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "$comment": true, "title": true,
	"description": true, "examples": true, "default": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "format": true,
}

type fastCompiler struct {
	docs  map[string]any       // file URL → its parsed schema
	nodes map[string]*fastNode // absolute URL with pointer → node, for $ref
}

// compileFast compiles every part's schema it can; a part it cannot is left
// out of the map.
func compileFast(docs map[string]any, parts map[string]string) map[string]*fastNode {
	c := &fastCompiler{docs: docs, nodes: map[string]*fastNode{}}
	out := map[string]*fastNode{}
	for key, file := range parts {
		n, err := c.at(SchemaBase + file)
		if err == nil {
			out[key] = n
		}
	}
	return out
}

// at compiles the schema an absolute reference points to, once.
func (c *fastCompiler) at(ref string) (*fastNode, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return nil, err
	}
	frag := u.Fragment
	u.Fragment = ""
	key := u.String() + "#" + frag
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	doc, ok := c.docs[u.String()]
	if !ok {
		return nil, fmt.Errorf("no schema %s", u)
	}
	if frag != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			m, ok := doc.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: pointer into a non-object", ref)
			}
			if doc, ok = m[tok]; !ok {
				return nil, fmt.Errorf("%s: no %q", ref, tok)
			}
		}
	}
	n := &fastNode{}
	c.nodes[key] = n // before compiling: a schema may refer to itself
	if err := c.fill(n, doc, u.String()); err != nil {
		return nil, err
	}
	return n, nil
}

func (c *fastCompiler) compile(doc any, base string) (*fastNode, error) {
	n := &fastNode{}
	return n, c.fill(n, doc, base)
}

func (c *fastCompiler) fill(n *fastNode, doc any, base string) error {
	n.minLength, n.minItems = -1, -1
	if b, ok := doc.(bool); ok {
		n.boolean = &b
		return nil
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("a schema is an object or a boolean, not %T", doc)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var err error
	sub := func(v any) *fastNode {
		if err != nil {
			return nil
		}
		var s *fastNode
		s, err = c.compile(v, base)
		return s
	}
	count := func(v any) int {
		num, ok := v.(json.Number)
		if !ok {
			err = fmt.Errorf("a count is a number, not %T", v)
			return 0
		}
		i, e := strconv.Atoi(string(num))
		if e != nil {
			err = e
		}
		return i
	}
	if _, hasThen := m["then"]; hasThen {
		if _, hasIf := m["if"]; !hasIf {
			return fmt.Errorf("then without if")
		}
	}
	for _, k := range keys {
		v := m[k]
		switch k {
		case "type":
			switch t := v.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, x := range t {
					s, ok := x.(string)
					if !ok {
						return fmt.Errorf("a type is a string")
					}
					n.types = append(n.types, s)
				}
			default:
				return fmt.Errorf("type is a string or a list")
			}
			for _, t := range n.types {
				switch t {
				case "null", "boolean", "object", "array", "number", "integer", "string":
				default:
					return fmt.Errorf("unknown type %q", t)
				}
			}
		case "properties":
			pm, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("properties is an object")
			}
			n.props = map[string]*fastNode{}
			for name, s := range pm {
				n.props[name] = sub(s)
			}
		case "required":
			l, ok := v.([]any)
			if !ok {
				return fmt.Errorf("required is a list")
			}
			for _, x := range l {
				s, ok := x.(string)
				if !ok {
					return fmt.Errorf("required names strings")
				}
				n.required = append(n.required, s)
			}
		case "additionalProperties":
			n.addl = sub(v)
		case "enum":
			l, ok := v.([]any)
			if !ok {
				return fmt.Errorf("enum is a list")
			}
			n.enum, n.hasEnum = l, true
		case "const":
			n.konst, n.hasConst = v, true
		case "items":
			n.items = sub(v)
		case "$ref":
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("$ref is a string")
			}
			bu, e := url.Parse(base)
			if e != nil {
				return e
			}
			ru, e := url.Parse(s)
			if e != nil {
				return e
			}
			if n.ref, err = c.at(bu.ResolveReference(ru).String()); err != nil {
				return err
			}
		case "allOf":
			l, ok := v.([]any)
			if !ok {
				return fmt.Errorf("allOf is a list")
			}
			for _, x := range l {
				n.allOf = append(n.allOf, sub(x))
			}
		case "not":
			n.not = sub(v)
		case "if":
			n.ifN = sub(v)
		case "then":
			n.thenN = sub(v)
		case "minimum":
			num, ok := v.(json.Number)
			if !ok {
				return fmt.Errorf("minimum is a number")
			}
			r, ok := new(big.Rat).SetString(string(num))
			if !ok {
				return fmt.Errorf("minimum %s", num)
			}
			n.minimum = r
		case "pattern":
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("pattern is a string")
			}
			re, e := regexp.Compile(s)
			if e != nil {
				return e
			}
			n.pattern = re
		case "propertyNames":
			n.propNames = sub(v)
		case "minLength":
			n.minLength = count(v)
		case "minItems":
			n.minItems = count(v)
		case "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("uniqueItems is a boolean")
			}
			n.unique = b
		default:
			if !annotations[k] {
				return fmt.Errorf("keyword %q is not compiled", k)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// valid reports whether v, a document as jsonschema.UnmarshalJSON decodes
// it, is valid.
func (n *fastNode) valid(v any) bool {
	if n.boolean != nil {
		return *n.boolean
	}
	if n.types != nil && !n.typeOK(v) {
		return false
	}
	if n.hasConst && !schemaEqual(v, n.konst) {
		return false
	}
	if n.hasEnum {
		found := false
		for _, e := range n.enum {
			if schemaEqual(v, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if n.ref != nil && !n.ref.valid(v) {
		return false
	}
	for _, s := range n.allOf {
		if !s.valid(v) {
			return false
		}
	}
	if n.not != nil && n.not.valid(v) {
		return false
	}
	if n.ifN != nil && n.thenN != nil && n.ifN.valid(v) && !n.thenN.valid(v) {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		for _, r := range n.required {
			if _, ok := x[r]; !ok {
				return false
			}
		}
		for k, val := range x {
			if p, ok := n.props[k]; ok {
				if !p.valid(val) {
					return false
				}
			} else if n.addl != nil && !n.addl.valid(val) {
				return false
			}
			if n.propNames != nil && !n.propNames.valid(k) {
				return false
			}
		}
	case []any:
		if n.minItems >= 0 && len(x) < n.minItems {
			return false
		}
		if n.items != nil {
			for _, e := range x {
				if !n.items.valid(e) {
					return false
				}
			}
		}
		if n.unique {
			for i := range x {
				for j := i + 1; j < len(x); j++ {
					if schemaEqual(x[i], x[j]) {
						return false
					}
				}
			}
		}
	case string:
		if n.minLength >= 0 && utf8.RuneCountInString(x) < n.minLength {
			return false
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			return false
		}
	case json.Number:
		if n.minimum != nil {
			r, ok := rat(x)
			if !ok || r.Cmp(n.minimum) < 0 {
				return false
			}
		}
	}
	return true
}

func (n *fastNode) typeOK(v any) bool {
	for _, t := range n.types {
		switch x := v.(type) {
		case nil:
			if t == "null" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case map[string]any:
			if t == "object" {
				return true
			}
		case []any:
			if t == "array" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case json.Number:
			if t == "number" {
				return true
			}
			if t == "integer" {
				if r, ok := rat(x); ok && r.IsInt() {
					return true
				}
			}
		}
	}
	return false
}

// rat reads a JSON number exactly; a plain integer literal of up to 18
// digits takes the short way.
func rat(n json.Number) (*big.Rat, bool) {
	s := string(n)
	if len(s) <= 18 && !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return new(big.Rat).SetInt64(i), true
		}
	}
	return new(big.Rat).SetString(s)
}

// schemaEqual is equality of JSON values: numbers by value, objects ignoring
// the order of their members.
func schemaEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		rx, okx := rat(x)
		ry, oky := rat(y)
		return okx && oky && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !schemaEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !schemaEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}
