package jsonstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// KeyError is an object whose keys repeat, exactly or ignoring case.
type KeyError struct {
	Path  string // JSON pointer of the object, "/" for the top level
	Key   string // the later key
	First string // the earlier key it repeats
}

func (e *KeyError) Error() string {
	if e.Key == e.First {
		return "at " + e.Path + ": key " + strconv.Quote(e.Key) + " appears twice"
	}
	return "at " + e.Path + ": keys " + strconv.Quote(e.First) + " and " + strconv.Quote(e.Key) + " differ only in case"
}

// Canonical returns b with every integral number written as an integer
// literal (1200.0, 1.2e3 → 1200). A number that is not integral, or whose
// integer does not fit in 64 bits (1e400), is left as written for the
// decoder to judge. b is returned unchanged, without a copy, when nothing
// needs rewriting. The error is a syntax error or a *KeyError.
func Canonical(b []byte) ([]byte, error) {
	out, _, err := scan(b, false)
	return out, err
}

// Envelope is Canonical for a message envelope: it also returns the keys of
// the top-level object, in order, and leaves that object's own number
// members as written, because a JSON-RPC id must be echoed exactly as it was
// received.
func Envelope(b []byte) ([]byte, []string, error) {
	return scan(b, true)
}

func scan(b []byte, keepTop bool) ([]byte, []string, error) {
	if !json.Valid(b) {
		err := json.Unmarshal(b, new(json.RawMessage))
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, nil, err
	}
	s := scanner{b: b, keepTop: keepTop}
	if err := s.value(); err != nil {
		return nil, nil, err
	}
	if s.out == nil {
		return b, s.top, nil
	}
	return append(s.out, b[s.last:]...), s.top, nil
}

// scanner walks a text that json.Valid accepted, so it checks no syntax.
type scanner struct {
	b       []byte
	i       int
	keepTop bool
	out     []byte // nil until the first rewrite
	last    int    // b[last:] is not yet copied to out
	path    []elem
	top     []string
}

type elem struct {
	key []byte
	idx int // -1 for an object member
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value() error {
	s.ws()
	switch c := s.b[s.i]; c {
	case '{':
		return s.object()
	case '[':
		return s.array()
	case '"':
		s.str()
	case 't', 'n':
		s.i += 4
	case 'f':
		s.i += 5
	default:
		s.number()
	}
	return nil
}

func (s *scanner) object() error {
	s.i++
	top := len(s.path) == 0
	var seen keySet
	s.ws()
	if s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		s.ws()
		key := s.str()
		if first, dup := seen.add(key); dup {
			return &KeyError{Path: s.pointer(), Key: string(key), First: string(first)}
		}
		if top {
			s.top = append(s.top, string(key))
		}
		s.ws()
		s.i++ // ':'
		s.path = append(s.path, elem{key: key, idx: -1})
		if err := s.value(); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		s.ws()
		c := s.b[s.i]
		s.i++
		if c == '}' {
			return nil
		}
	}
}

func (s *scanner) array() error {
	s.i++
	s.ws()
	if s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for n := 0; ; n++ {
		s.path = append(s.path, elem{idx: n})
		if err := s.value(); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		s.ws()
		c := s.b[s.i]
		s.i++
		if c == ']' {
			return nil
		}
	}
}

// str skips a string and returns its decoded value (a sub-slice of b when
// it has no escapes).
func (s *scanner) str() []byte {
	start := s.i
	s.i++
	escaped := false
	for {
		c := s.b[s.i]
		if c == '\\' {
			escaped = true
			s.i += 2
			continue
		}
		s.i++
		if c == '"' {
			break
		}
	}
	if !escaped {
		return s.b[start+1 : s.i-1]
	}
	var v string
	_ = json.Unmarshal(s.b[start:s.i], &v) // valid: json.Valid accepted it
	return []byte(v)
}

func (s *scanner) number() {
	start := s.i
	neg := s.b[s.i] == '-'
	if neg {
		s.i++
	}
	intPart := s.digits()
	var frac, exp []byte
	var hasFrac, hasExp, expNeg bool
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		frac, hasFrac = s.digits(), true
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if c := s.b[s.i]; c == '+' || c == '-' {
			expNeg = c == '-'
			s.i++
		}
		exp, hasExp = s.digits(), true
	}
	if !hasFrac && !hasExp || s.keepTop && len(s.path) == 1 {
		return
	}
	if lit, ok := integral(neg, intPart, frac, expNeg, exp); ok {
		if s.out == nil {
			s.out = make([]byte, 0, len(s.b))
		}
		s.out = append(append(s.out, s.b[s.last:start]...), lit...)
		s.last = s.i
	}
}

func (s *scanner) digits() []byte {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.b[start:s.i]
}

// integral writes intPart.frac × 10^±exp as a decimal integer literal when
// it is one and fits in an int64.
func integral(neg bool, intPart, frac []byte, expNeg bool, exp []byte) (string, bool) {
	digits := bytes.TrimLeft(append(append([]byte{}, intPart...), frac...), "0")
	if len(digits) == 0 {
		return "0", true
	}
	if len(exp) > 9 { // |exponent| ≥ 10⁹: far outside int64, or a fraction
		return "", false
	}
	e, _ := strconv.Atoi(string(exp))
	if expNeg {
		e = -e
	}
	e -= len(frac)
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		e++
	}
	if e < 0 || len(digits)+e > 19 {
		return "", false
	}
	lit := string(digits) + strings.Repeat("0", e)
	if neg {
		lit = "-" + lit
	}
	if _, err := strconv.ParseInt(lit, 10, 64); err != nil {
		return "", false
	}
	return lit, true
}

func (s *scanner) pointer() string {
	if len(s.path) == 0 {
		return "/"
	}
	var sb strings.Builder
	for _, e := range s.path {
		sb.WriteByte('/')
		if e.idx >= 0 {
			sb.WriteString(strconv.Itoa(e.idx))
			continue
		}
		sb.WriteString(strings.ReplaceAll(strings.ReplaceAll(string(e.key), "~", "~0"), "/", "~1"))
	}
	return sb.String()
}

// keySet finds a repeated key: by linear search in small objects, by a map
// of folded keys in large ones, so a hostile object of many keys costs
// linear time.
type keySet struct {
	small [][]byte
	big   map[string][]byte
}

const smallObject = 16

func (k *keySet) add(key []byte) ([]byte, bool) {
	if k.big == nil {
		for _, p := range k.small {
			if bytes.EqualFold(p, key) {
				return p, true
			}
		}
		k.small = append(k.small, key)
		if len(k.small) <= smallObject {
			return nil, false
		}
		k.big = make(map[string][]byte, 2*len(k.small))
		for _, p := range k.small {
			k.big[fold(p)] = p
		}
		k.small = nil
		return nil, false
	}
	f := fold(key)
	if p, ok := k.big[f]; ok {
		return p, true
	}
	k.big[f] = key
	return nil, false
}

// fold maps every rune to the least rune of its case-folding orbit, so two
// keys fold alike exactly when bytes.EqualFold holds.
func fold(b []byte) string {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b) // an invalid byte is U+FFFD here, as in bytes.EqualFold
		b = b[n:]
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		out = utf8.AppendRune(out, m)
	}
	return string(out)
}
