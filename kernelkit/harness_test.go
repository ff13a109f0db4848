package kernelkit

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// fakeHarness is the other end of the pipe for the kit's own tests: it
// answers the kernel's requests with answer, records every notification
// and every $/cancelRequest, and validates everything the kit sends, on
// both sides: the kit checks its outgoing lines (CheckOutgoing) and the
// harness its incoming messages, as conform does.
type fakeHarness struct {
	conn   *jsonrpc.Conn
	served chan error
	answer func(ctx context.Context, method string, params json.RawMessage) (any, error)

	mu    sync.Mutex
	notes []note
	lines []string // everything the kit wrote, line by line, in order
}

// tap records what the kit writes before the harness reads it.
type tap struct {
	r io.Reader
	h *fakeHarness
}

func (t tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.h.mu.Lock()
	defer t.h.mu.Unlock()
	for _, l := range strings.Split(string(p[:n]), "\n") {
		if l != "" {
			t.h.lines = append(t.h.lines, l)
		}
	}
	return n, err
}

// lineIndex is the index of the first line the kit wrote containing s.
func (h *fakeHarness) lineIndex(s string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.IndexFunc(h.lines, func(l string) bool { return strings.Contains(l, s) })
}

type note struct {
	method string
	params json.RawMessage
}

func startKit(t *testing.T, k Kernel, answer func(ctx context.Context, method string, params json.RawMessage) (any, error)) *fakeHarness {
	t.Helper()
	kin, hout := io.Pipe()
	hin, kout := io.Pipe()
	h := &fakeHarness{served: make(chan error, 1), answer: answer}
	h.conn = jsonrpc.New(tap{hin, h}, hout, hout, h.handle, jsonrpc.Options{
		Validate: func(method string, part jsonrpc.Part, raw json.RawMessage) error {
			return wire.Validate(method, part.String(), raw)
		},
		OnViolation: func(v *jsonrpc.Violation) { t.Errorf("the kit broke the protocol: %v", v) },
	})
	h.conn.Start()
	go func() {
		h.served <- Serve(context.Background(), k, kin, kout, CheckOutgoing(func(err error) { t.Errorf("kit sent an invalid message: %v", err) }))
		kout.Close()
	}()
	t.Cleanup(func() {
		h.conn.Close()
		select {
		case <-h.served:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after the input ended")
		}
	})
	return h
}

func (h *fakeHarness) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.IsNotification() {
		h.mu.Lock()
		h.notes = append(h.notes, note{req.Method, req.Params})
		h.mu.Unlock()
		return nil, nil
	}
	if h.answer == nil {
		return nil, &Error{Code: wire.CodeMethodNotFound, Message: req.Method}
	}
	return h.answer(ctx, req.Method, req.Params)
}

func (h *fakeHarness) call(t *testing.T, method string, params, result any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.conn.Call(ctx, method, params, result)
}

func (h *fakeHarness) init(t *testing.T) {
	t.Helper()
	var res wire.InitializeResult
	if err := h.call(t, wire.MethodInitialize, wire.InitializeParams{ProtocolVersions: []string{wire.Version}, Harness: wire.Peer{Name: "test", Version: "0"}}, &res); err != nil {
		t.Fatal(err)
	}
}

// notesOf are the params of the notifications of one method, in order.
func (h *fakeHarness) notesOf(method string) []json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []json.RawMessage
	for _, n := range h.notes {
		if n.method == method {
			out = append(out, n.params)
		}
	}
	return out
}

func codeOf(err error) int {
	c, _ := Code(err)
	return c
}

func decodeAs[P any](t *testing.T, raw json.RawMessage) P {
	t.Helper()
	var p P
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// config is a minimal session config with one tool of each kind.
func config() wire.SessionConfig {
	return wire.SessionConfig{
		Profile: "p", WorkingDirectory: "/w",
		Hooks:  wire.Hooks{DefaultTimeoutMS: 1000},
		Policy: wire.Policy{},
		Model: wire.ModelSpec{Name: "m", SupportsToolUse: true, Pricing: wire.Pricing{Currency: "USD",
			Tiers: []wire.PricingTier{{InputPerMtok: 1, OutputPerMtok: 2}}}},
		Tools: []wire.ToolSchema{
			{Provider: "fs", Name: "read", Kind: wire.KindDataSource, Risk: "low"},
			{Provider: "ui", Name: "ask", Kind: wire.KindInteractive, Risk: "low"},
			{Provider: "fs", Name: "write", Kind: wire.KindResource, Risk: "high"},
		},
	}
}

// kernelFunc is a Kernel made of a Run function.
type kernelFunc func(ctx context.Context, h *Host, p wire.RunParams) (wire.RunSessionResult, error)

func (kernelFunc) Info() Info { return Info{Name: "kit-test", Version: "0"} }

func (f kernelFunc) Run(ctx context.Context, h *Host, p wire.RunParams) (wire.RunSessionResult, error) {
	return f(ctx, h, p)
}
