package wire

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decodeDoc reads every text as jsonschema.UnmarshalJSON reads it, the
// strings it unescapes itself included: the same value, or an error both
// times.
func FuzzDecodeDoc(f *testing.F) {
	for _, s := range []string{
		`{"a":"plain","b":[1,-2.5e3,true,false,null]}`,
		`{"arguments":"{\"q\":\"a\"}","t":"a \u003cb\u003e \u0026 c"}`,
		`"\\ \/ \b \f \n \r \t \u00e9 \u2028 \u0000"`,
		`"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`, `"\u12"`, `"\u12G4"`, `"\x"`, `"\`, `"a\"`, "\"\\\n\"",
		"\"caf\xc3\xa9 \\n\"", "\"\xff\\n\"", `{"k\"ey":1,"k\\ey":2}`, `"\u+123"`, `"\u_123"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, gerr := decodeDoc(raw)
		want, werr := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%q: decodeDoc error %v, jsonschema %v", raw, gerr, werr)
		}
		if gerr == nil {
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%q: decodeDoc differs from jsonschema (-want +got):\n%s", raw, d)
			}
		}
	})
}
