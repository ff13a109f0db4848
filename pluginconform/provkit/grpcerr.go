package provkit

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/agentconform/conform/pluginconform/kit"
)

// Detail returns the first detail of err's gRPC status that is a T (a
// category's ContextError or MemoryError), and the status.
func Detail[T proto.Message](err error) (T, *status.Status) {
	var zero T
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if t, ok := d.(T); ok {
			return t, st
		}
	}
	return zero, st
}

// Transport reports whether a gRPC error is the transport's rather than
// the plugin's answer: a hang, a dead connection, a cancelled call. A
// plugin may answer Unavailable itself (a source unavailable), so that
// code counts as the transport's only with the transport's own words.
func Transport(err error) bool {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.DeadlineExceeded, codes.Canceled:
		return true
	case codes.Unavailable:
		m := st.Message()
		return len(st.Details()) == 0 && (strings.Contains(m, "transport") || strings.Contains(m, "connection") || strings.Contains(m, "EOF"))
	}
	return false
}

// StatusText is "gRPC status CODE: message", clipped.
func StatusText(err error) string {
	st, _ := status.FromError(err)
	return fmt.Sprintf("gRPC status %s: %s", st.Code(), kit.Clip(st.Message(), 200))
}

// Unimplemented reports whether err says the method is not served.
func Unimplemented(err error) bool { return status.Code(err) == codes.Unimplemented }

// TailLines keeps the last n lines of s.
func TailLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
