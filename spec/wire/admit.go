package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Admit is what a peer checks of a message part it receives: Validate, then
// that the part decodes into its Go type (Decode), with the same errors. raw
// must be a part the transport has already read with jsonstrict (no key
// repeated, integral numbers written as integers), as internal/jsonrpc
// hands it over.
//
// It reads the part once for both: a schema-valid part can fail to decode
// only by a number that does not fit its Go field (see Decode), so the
// decoding is only tried when some number of the part is not an integer
// literal that fits in 64 bits, or when the part's Go type has a numeric
// field other than int, int64 and float64, which every such literal fits.
func Admit(method, part string, raw json.RawMessage) error {
	compileOnce.Do(loadSchemas)
	key := schemaKey(method, part)
	if _, ok := parts[key]; !ok {
		return Validate(method, part, raw) // names what is unknown
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	doc, err := decodeDoc(raw)
	if err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	if err := validateDoc(key, doc); err != nil {
		return err
	}
	if plainNumbers(doc) && !narrowNumbers(method, part) {
		return nil
	}
	if _, err := Decode(method, part, raw); err != nil {
		return fmt.Errorf("does not decode: %w", err)
	}
	return nil
}

// plainNumbers reports whether every number in v is an integer literal
// that fits in an int64.
func plainNumbers(v any) bool {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if strings.ContainsAny(s, ".eE") {
			return false
		}
		_, err := strconv.ParseInt(s, 10, 64)
		return err == nil
	case map[string]any:
		for _, e := range x {
			if !plainNumbers(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !plainNumbers(e) {
				return false
			}
		}
	}
	return true
}

var (
	narrow      sync.Map // schema key → bool
	unmarshaler = reflect.TypeFor[json.Unmarshaler]()
)

// narrowNumbers reports whether the part's Go type holds a number of a kind
// an int64 literal may not fit (unsigned or narrower than 64 bits).
func narrowNumbers(method, part string) bool {
	key := schemaKey(method, part)
	if v, ok := narrow.Load(key); ok {
		return v.(bool)
	}
	t, ok := partTypes[key]
	n := !ok || hasNarrow(t, map[reflect.Type]bool{})
	narrow.Store(key, n)
	return n
}

func hasNarrow(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
		return t != reflect.TypeFor[json.RawMessage]() // its own decoding may refuse anything
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Float64, reflect.String, reflect.Bool, reflect.Interface:
		return false
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return false // bytes: a string or raw JSON, not numbers
		}
		return hasNarrow(t.Elem(), seen)
	case reflect.Pointer, reflect.Array:
		return hasNarrow(t.Elem(), seen)
	case reflect.Map:
		return hasNarrow(t.Key(), seen) || hasNarrow(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Tag.Get("json") != "-" && hasNarrow(f.Type, seen) {
				return true
			}
		}
		return false
	}
	return true // anything else: decode to be sure
}
