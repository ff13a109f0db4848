package callback

import (
	"context"
	"fmt"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"

	kernelv1 "github.com/agentconform/conform/api/gen/pluggableharness/kernel/v1"
)

// BrokerID is the go-plugin broker stream the kernel serves the callback
// service on, fixed by the upstream runtime rather than negotiated.
const BrokerID uint32 = 1

// Emitted is one event the plugin emitted.
type Emitted struct {
	Kind          kernelv1.EventKind
	SchemaVersion string
	Payload       []byte
}

// Server records the plugin's callbacks. The zero value is not usable; use
// New.
type Server struct {
	kernelv1.UnimplementedKernelCallbackServiceServer

	mu      sync.Mutex
	emitted []Emitted
	logs    []string
	counts  []Count // CountTokens answers (count.go)
}

// New returns an empty recording server.
func New() *Server { return &Server{} }

// Emit records the event and gives it a sequence number.
func (s *Server) Emit(_ context.Context, req *kernelv1.EmitRequest) (*kernelv1.EmitResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emitted = append(s.emitted, Emitted{Kind: req.GetKind(), SchemaVersion: req.GetSchemaVersion(), Payload: append([]byte(nil), req.GetPayload()...)})
	n := len(s.emitted)
	return &kernelv1.EmitResult{Id: fmt.Sprintf("conform-event-%d", n), Sequence: int64(n)}, nil
}

// Log records every entry as text (level, logger, message and fields).
func (s *Server) Log(_ context.Context, req *kernelv1.LogRequest) (*kernelv1.LogResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range req.GetEntries() {
		b, err := protojson.Marshal(e)
		if err != nil {
			b = []byte(e.String())
		}
		s.logs = append(s.logs, string(b))
	}
	return &kernelv1.LogResult{}, nil
}

// GetTelemetryConfig says that telemetry is off, so a plugin built on an
// SDK that asks at startup neither fails nor exports spans anywhere.
func (s *Server) GetTelemetryConfig(context.Context, *kernelv1.GetTelemetryConfigRequest) (*kernelv1.GetTelemetryConfigResult, error) {
	return &kernelv1.GetTelemetryConfigResult{}, nil
}

// Emitted returns a copy of every emitted event so far.
func (s *Server) Emitted() []Emitted {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Emitted(nil), s.emitted...)
}

// Logs returns every log entry so far, as JSON text.
func (s *Server) Logs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.logs...)
}
