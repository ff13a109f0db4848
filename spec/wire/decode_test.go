package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// jsonEqual compares raw JSON by value, so that 20 and 20.0 are equal where a
// part keeps JSON as it came (tool inputs, memory values); absent is null.
var jsonEqual = cmp.Comparer(func(a, b json.RawMessage) bool {
	if len(a) == 0 {
		a = json.RawMessage("null")
	}
	if len(b) == 0 {
		b = json.RawMessage("null")
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return cmp.Equal(x, y)
})

// anyNumbers compares free-form maps as JSON sees them, so that an int in an
// example equals the float64 that decoding yields.
var anyNumbers = cmp.Transformer("json", func(m map[string]any) string {
	b, _ := json.Marshal(m) // sorted keys; 1 and 1.0 both print as 1
	return string(b)
})

// TestDecodeTypesMatchExamples keeps Decode's type table and the examples
// in step: every example is a value of the type Decode makes for its part.
func TestDecodeTypesMatchExamples(t *testing.T) {
	for _, ex := range examples() {
		if ex.value == nil {
			continue
		}
		want := partTypes[schemaKey(ex.method, ex.part)]
		if got := reflect.TypeOf(ex.value); got != want {
			t.Errorf("%s %s (%s): example is %v, Decode makes %v", ex.method, ex.part, ex.name, got, want)
		}
	}
	for _, p := range allParts() {
		if _, ok := partTypes[schemaKey(p[0], p[1])]; !ok {
			t.Errorf("%s %s has no Go type for Decode", p[0], p[1])
		}
	}
	if _, err := Decode("no/such", PartParams, nil); err == nil {
		t.Error("Decode of an unknown method succeeded")
	}
}

// TestEverySchemaValidExampleDecodes: what the schema accepts, the decoder
// turns back into the same Go value.
func TestEverySchemaValidExampleDecodes(t *testing.T) {
	for _, ex := range examples() {
		b, _ := json.Marshal(ex.value)
		if Validate(ex.method, ex.part, b) != nil {
			continue // TestExamplesValidate reports it
		}
		got, err := Decode(ex.method, ex.part, b)
		if err != nil {
			t.Errorf("%s %s (%s): schema-valid but does not decode: %v\n%s", ex.method, ex.part, ex.name, err, b)
			continue
		}
		if ex.value == nil {
			continue
		}
		if d := cmp.Diff(ex.value, reflect.ValueOf(got).Elem().Interface(), jsonEqual, anyNumbers); d != "" {
			t.Errorf("%s %s (%s): decoded value differs (-want +got):\n%s", ex.method, ex.part, ex.name, d)
		}
	}
}

// TestIntegralFloatsDecode: writing any integer of any example in another
// integral notation (1200.0, 1.2e3, 12000e-1) keeps the message
// schema-valid and decodes to the same value.
func TestIntegralFloatsDecode(t *testing.T) {
	exs := examples()
	rapid.Check(t, func(t *rapid.T) {
		ex := exs[rapid.IntRange(0, len(exs)-1).Draw(t, "example")]
		b, _ := json.Marshal(ex.value)
		var doc any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		n := 0
		doc = respell(t, doc, &n)
		v, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(ex.method, ex.part, v); err != nil {
			t.Fatalf("%s %s (%s): the schema refuses an integral float: %v\n%s", ex.method, ex.part, ex.name, err, v)
		}
		got, err := Decode(ex.method, ex.part, v)
		if err != nil {
			t.Fatalf("%s %s (%s): %d integers respelt, does not decode: %v\n%s", ex.method, ex.part, ex.name, n, err, v)
		}
		if ex.value == nil {
			return
		}
		if d := cmp.Diff(ex.value, reflect.ValueOf(got).Elem().Interface(), jsonEqual, anyNumbers); d != "" {
			t.Fatalf("%s %s (%s): decoded value differs (-want +got):\n%s\n%s", ex.method, ex.part, ex.name, d, v)
		}
	})
}

// respell rewrites every integer in doc in a random integral notation.
func respell(t *rapid.T, doc any, n *int) any {
	switch x := doc.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		if !ok || !r.IsInt() {
			return x
		}
		*n++
		i := r.Num().String()
		if i == "0" {
			return json.Number(rapid.SampledFrom([]string{"0", "0.0", "-0.0", "0e7", "0.000E-3"}).Draw(t, "zero"))
		}
		switch rapid.IntRange(0, 4).Draw(t, "spelling") {
		case 0:
			return x
		case 1:
			return json.Number(i + ".0")
		case 2:
			return json.Number(i + ".000e0")
		case 3:
			return json.Number(i + "0e-1")
		default:
			neg, digits := strings.HasPrefix(i, "-"), strings.TrimPrefix(i, "-")
			s := digits[:1] + "." + digits[1:] + "0" + fmt.Sprintf("E+%d", len(digits)-1)
			if neg {
				s = "-" + s
			}
			return json.Number(s)
		}
	case []any:
		for i := range x {
			x[i] = respell(t, x[i], n)
		}
	case map[string]any:
		for k := range x {
			x[k] = respell(t, x[k], n)
		}
	}
	return doc
}

// TestOutOfRangeNumbersNameTheField: a number that is schema-valid but does
// not fit its Go field is an error naming the field, never a zero.
func TestOutOfRangeNumbersNameTheField(t *testing.T) {
	cost := func(tokens, usd string) json.RawMessage {
		return json.RawMessage(`{"session_id":"s","turn_id":"t","model":"m","usage":{"input_tokens":` + tokens +
			`,"output_tokens":1},"cost_usd":` + usd + `,"session_total_usd":0,"tier_index":0}`)
	}
	for _, tt := range []struct {
		raw  json.RawMessage
		want string
	}{
		{cost("1e400", "0"), "at /usage/input_tokens: number 1e400 is not an int64"},
		{cost("9223372036854775808", "0"), "at /usage/input_tokens: number 9223372036854775808 is not an int64"},
		{cost("1", "1e400"), "at /cost_usd: number 1e400 is not a float64"},
	} {
		if err := Validate(NotifyCostUsage, PartParams, tt.raw); err != nil {
			t.Fatalf("fixture %s is not schema-valid: %v", tt.raw, err)
		}
		_, err := Decode(NotifyCostUsage, PartParams, tt.raw)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Decode(%s): %v, want %q", tt.raw, err, tt.want)
		}
	}
	v, err := Decode(NotifyCostUsage, PartParams, cost("1200.0", "0.5"))
	if err != nil || v.(*CostUsage).Usage.InputTokens != 1200 {
		t.Errorf("1200.0 tokens: %+v, %v", v, err)
	}
}
