package jsonrpc

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// FuzzLine feeds any bytes as one line from the peer: the connection never
// panics, and it ends (at EOF or with a violation) instead of hanging.
func FuzzLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"tick","params":{"n":1200.0}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"RESULT":1}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"t\",\"params\":\"\xff\"}",
		`[1,2]`, `{"a":1,"a":2}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		h := func(_ context.Context, r *Request) (any, error) { return r.Params, nil }
		c := New(bytes.NewReader(append(line, '\n')), io.Discard, nil, h, Options{Handshake: len(line)%2 == 0})
		c.readLoop()
		<-c.Done()
	})
}
