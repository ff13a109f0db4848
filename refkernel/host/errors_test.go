package host

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

func TestCodeUnwrapsBothErrorTypes(t *testing.T) {
	cases := []struct {
		name string
		err  error
		code int
		ok   bool
	}{
		{"host error", &Error{Code: wire.CodeProcessCrashed}, wire.CodeProcessCrashed, true},
		{"wrapped jsonrpc", fmt.Errorf("invoke: %w", &jsonrpc.Error{Code: wire.CodeHookFailed}), wire.CodeHookFailed, true},
		{"plain", errors.New("boom"), 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, ok := Code(c.err)
			if code != c.code || ok != c.ok {
				t.Fatalf("Code = %d, %v; want %d, %v", code, ok, c.code, c.ok)
			}
		})
	}
}
