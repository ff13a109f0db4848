package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decodeDoc decodes a JSON text into the document the validators read, the
// value jsonschema.UnmarshalJSON returns (objects as map[string]any, arrays
// as []any, numbers as json.Number with the text as written). The common
// case, a well-formed text whose strings need no unescaping, is read in one
// pass without encoding/json's reflection; anything else (escapes, invalid
// text, deep nesting) is read by jsonschema.UnmarshalJSON itself, which also
// words the error. FuzzDecode holds the two to the same value.
func decodeDoc(raw []byte) (any, error) {
	p := docParser{b: raw}
	if v, ok := p.value(0); ok {
		p.ws()
		if p.i == len(p.b) {
			return v, nil
		}
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

type docParser struct {
	b []byte
	i int
}

// maxDepth bounds the nesting the short way reads; deeper texts take the
// long way.
const maxDepth = 200

func (p *docParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *docParser) value(depth int) (any, bool) {
	p.ws()
	if p.i >= len(p.b) || depth > maxDepth {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		m := map[string]any{}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return m, true
		}
		for {
			p.ws()
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, false
			}
			p.i++
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			if end, ok := p.sep('}'); !ok {
				return nil, false
			} else if end {
				return m, true
			}
		}
	case c == '[':
		p.i++
		l := []any{}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return l, true
		}
		for {
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			l = append(l, v)
			if end, ok := p.sep(']'); !ok {
				return nil, false
			} else if end {
				return l, true
			}
		}
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.num()
	case bytes.HasPrefix(p.b[p.i:], []byte("true")):
		p.i += 4
		return true, true
	case bytes.HasPrefix(p.b[p.i:], []byte("false")):
		p.i += 5
		return false, true
	case bytes.HasPrefix(p.b[p.i:], []byte("null")):
		p.i += 4
		return nil, true
	}
	return nil, false
}

// str reads a string that is valid UTF-8. Its escapes are read here too,
// except \u escapes of surrogates, which take the long way (a lone one
// becomes U+FFFD there): json.Marshal escapes quotes and <, >, & in every
// string, so a tool's arguments carried as a string (a stream event's
// arguments) had always taken the long way.
func (p *docParser) str() (string, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", false
	}
	start := p.i + 1
	ascii, escaped := true, false
	j := start
	for ; j < len(p.b); j++ {
		c := p.b[j]
		if c == '"' {
			break
		}
		switch {
		case c == '\\':
			escaped = true
			j++ // the escaped byte is never the closing quote
		case c < 0x20:
			return "", false
		case c >= 0x80:
			ascii = false
		}
	}
	if j >= len(p.b) {
		return "", false
	}
	raw := p.b[start:j]
	if !ascii && !utf8.Valid(raw) {
		return "", false
	}
	if !escaped {
		p.i = j + 1
		return string(raw), true
	}
	out, ok := unescape(raw)
	if !ok {
		return "", false
	}
	p.i = j + 1
	return out, true
}

// unescape decodes the escapes of a string's contents (valid UTF-8
// between its quotes); false for a bad escape or a surrogate.
func unescape(raw []byte) (string, bool) {
	out := make([]byte, 0, len(raw))
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		k++
		if k >= len(raw) {
			return "", false
		}
		switch raw[k] {
		case '"', '\\', '/':
			out = append(out, raw[k])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if k+4 >= len(raw) {
				return "", false
			}
			r, err := strconv.ParseUint(string(raw[k+1:k+5]), 16, 32)
			if err != nil || utf16.IsSurrogate(rune(r)) {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			k += 4
		default:
			return "", false
		}
	}
	return string(out), true
}

// num reads a number as JSON writes it and keeps its text.
func (p *docParser) num() (any, bool) {
	b, j := p.b, p.i
	digits := func() int {
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j - k
	}
	if b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case digits() == 0:
		return nil, false
	}
	if j < len(b) && b[j] == '.' {
		j++
		if digits() == 0 {
			return nil, false
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	n := json.Number(b[p.i:j])
	p.i = j
	return n, true
}

// sep reads what follows a member or element: a comma (more follow) or
// the closing bracket (end); anything else is not JSON.
func (p *docParser) sep(closing byte) (end, ok bool) {
	p.ws()
	if p.i >= len(p.b) {
		return false, false
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return false, true
	case closing:
		p.i++
		return true, true
	}
	return false, false
}
