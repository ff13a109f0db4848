package host

import (
	"errors"
	"fmt"

	"github.com/agentconform/conform/internal/jsonrpc"
)

// Error is a failure the harness reported with a JSON-RPC error code, such
// as wire.CodeProcessCrashed for a tool whose provider died mid-call. An
// in-process Host returns it; the wire server's Host passes the transport's
// *jsonrpc.Error through, which Code understands as well.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("host error %d: %s", e.Code, e.Message) }

// Code extracts the JSON-RPC error code carried by err, if any.
func Code(err error) (int, bool) {
	var he *Error
	if errors.As(err, &he) {
		return he.Code, true
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code, true
	}
	return 0, false
}

// HasCode reports whether err carries the given JSON-RPC error code.
func HasCode(err error, code int) bool {
	c, ok := Code(err)
	return ok && c == code
}
