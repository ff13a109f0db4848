package kernelkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/agentconform/conform/spec/wire"
)

// outWriter passes every line the kit writes through. It closes seen once
// the answer to the shutdown request has been written, which the transport
// gives no other way to learn, and with check set it validates each line
// against its schema first (the transport writes one whole line per Write).
type outWriter struct {
	w     io.Writer
	seen  chan struct{}
	check func(error)

	mu       sync.Mutex
	shutdown json.RawMessage   // the shutdown request's id, once known
	done     bool              // seen is closed
	answers  map[string]string // id → method of requests being answered (check only)
}

// expect notes the method of an incoming request, so that its answer can
// be checked against the method's result schema.
func (w *outWriter) expect(id json.RawMessage, method string) {
	if w.check == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.answers[string(id)] = method
}

func (w *outWriter) await(id json.RawMessage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.shutdown = id
}

func (w *outWriter) Write(b []byte) (int, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	// A line is decoded only when something reads it: the check, or the
	// wait for the shutdown answer (await runs before that answer is
	// written). Decoding every line was a sixteenth of a generated fuzz
	// session's CPU (issue 25).
	w.mu.Lock()
	watching := w.shutdown != nil && !w.done
	w.mu.Unlock()
	parsed := false
	if w.check != nil || watching {
		parsed = json.Unmarshal(b, &m) == nil
	}
	if w.check != nil {
		w.validate(b, parsed, m.ID, m.Method, m.Params, m.Result)
	}
	n, err := w.w.Write(b)
	w.mu.Lock()
	defer w.mu.Unlock()
	if parsed && w.shutdown != nil && !w.done && m.Method == "" && bytes.Equal(m.ID, w.shutdown) {
		w.done = true
		close(w.seen)
	}
	return n, err
}

func (w *outWriter) validate(line []byte, parsed bool, id json.RawMessage, method string, params, result json.RawMessage) {
	if !parsed {
		w.check(fmt.Errorf("kernelkit wrote a line that is not JSON: %.200s", line))
		return
	}
	part, raw := wire.PartParams, params
	if method == "" {
		w.mu.Lock()
		method = w.answers[string(id)]
		delete(w.answers, string(id))
		w.mu.Unlock()
		if result == nil || method == "" {
			return // an error answer: only its JSON-RPC shape is agreed
		}
		part, raw = wire.PartResult, result
	}
	if err := wire.Validate(method, part, raw); err != nil {
		w.check(fmt.Errorf("%s %s: %w", method, part, err))
	}
}
