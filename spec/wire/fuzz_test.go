package wire

import (
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/agentconform/conform/internal/jsonstrict"
)

// numberTooBig is the one way a schema-valid part may fail to decode: a
// number that does not fit its Go field, named with its JSON location.
var numberTooBig = regexp.MustCompile(`^at /\S*: number \S+ is not an? (int|int8|int16|int32|int64|uint|uint8|uint16|uint32|uint64|float32|float64)$`)

// FuzzDecode feeds any bytes to Validate and Decode as any message part.
// Neither panics; what the schema accepts decodes (no message the checks
// should see is silently dropped), except a number too big for its field
// or a repeated key, each a named error; and what decodes re-encodes to a
// part its schema accepts, so the Go types keep what the schema requires.
// The seeds are the examples of every part, plus numbers and keys at the
// edges; testdata/fuzz/FuzzDecode holds what fuzzing found.
func FuzzDecode(f *testing.F) {
	parts := allParts()
	index := map[[2]string]uint8{}
	for i, p := range parts {
		index[p] = uint8(i)
	}
	for _, ex := range examples() {
		b, err := json.Marshal(ex.value)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(index[[2]string{ex.method, ex.part}], b)
	}
	costUsage := index[[2]string{NotifyCostUsage, PartParams}]
	for _, s := range []string{
		`{"session_id":"s","turn_id":"t","model":"m","usage":{"input_tokens":1200.0,"output_tokens":1.2e3},"cost_usd":0.5,"session_total_usd":0,"tier_index":0}`,
		`{"session_id":"s","turn_id":"t","model":"m","usage":{"input_tokens":1e400,"output_tokens":1},"cost_usd":0,"session_total_usd":0,"tier_index":0}`,
		`{"session_id":"s","turn_id":"t","model":"m","usage":{"input_tokens":9223372036854775808,"output_tokens":1},"cost_usd":1e-400,"session_total_usd":0,"tier_index":-0.0}`,
		`{"session_id":"s","SESSION_ID":"t","turn_id":"t","model":"m","usage":{"input_tokens":1,"output_tokens":1},"cost_usd":0,"session_total_usd":0,"tier_index":0}`,
		"{\"session_id\":\"s\xff\",\"turn_id\":\"t\",\"model\":\"\\ud800\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1},\"cost_usd\":0,\"session_total_usd\":0,\"tier_index\":0}",
		``, `null`, `{}`, `[]`, `{"a":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}`, `{} {}`, ` {"x":1} `,
	} {
		f.Add(costUsage, []byte(s))
	}
	f.Fuzz(func(t *testing.T, sel uint8, raw []byte) {
		p := parts[int(sel)%len(parts)]
		method, part := p[0], p[1]
		verr := Validate(method, part, raw)
		v, derr := Decode(method, part, raw)
		// Admit, on what the transport hands it, refuses exactly what
		// Validate and Decode refuse.
		if canon, err := jsonstrict.Canonical(raw); err == nil {
			aerr := Admit(method, part, canon)
			cverr := Validate(method, part, canon)
			_, cderr := Decode(method, part, canon)
			if (aerr == nil) != (cverr == nil && cderr == nil) {
				t.Fatalf("%s %s: Admit says %v; Validate %v, Decode %v\n%q", method, part, aerr, cverr, cderr, canon)
			}
		}
		if verr != nil {
			return
		}
		if derr != nil {
			var ke *jsonstrict.KeyError
			if !errors.As(derr, &ke) && !numberTooBig.MatchString(derr.Error()) {
				t.Fatalf("%s %s: schema-valid but does not decode, and the error names no field: %v\n%q", method, part, derr, raw)
			}
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s %s: decoded value does not encode: %v\n%q", method, part, err, raw)
		}
		if err := Validate(method, part, out); err != nil {
			t.Fatalf("%s %s: schema-valid part re-encodes to one its schema refuses: %v\nin:  %q\nout: %s", method, part, err, raw, out)
		}
	})
}
