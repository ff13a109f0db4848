package wire

import (
	"encoding/json"
	"testing"
)

// BenchmarkAdmit is what a peer pays to admit one typical part it
// receives: the schema and the decodability check (wire.Admit; before it,
// Validate then Decode).
func BenchmarkAdmit(b *testing.B) {
	for _, c := range []struct {
		name         string
		method, part string
		v            any
	}{
		{"model-stream-params", MethodModelStream, PartParams, typicalModelStreamParams()},
		{"initialize-result", MethodInitialize, PartResult, InitializeResult{ProtocolVersion: Version, Kernel: Peer{Name: "k", Version: "0"}, Capabilities: []string{}}},
	} {
		body, err := json.Marshal(c.v)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := admit(c.method, c.part, body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
