package server

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// watchWriter passes every line through and closes seen once the answer to
// the shutdown request has been written, which the transport gives no other
// way to learn. Lines are inspected only after shutdown was asked for.
type watchWriter struct {
	w    io.Writer
	seen chan struct{}

	mu   sync.Mutex
	id   json.RawMessage // the shutdown request's id, once known
	done bool
}

func (w *watchWriter) await(id json.RawMessage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.id = id
}

func (w *watchWriter) Write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.id != nil && !w.done && answers(b, w.id) {
		w.done = true
		close(w.seen)
	}
	return n, err
}

// answers reports whether line is the response to the request id.
func answers(line []byte, id json.RawMessage) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(line, &m) == nil && m.Method == "" && bytes.Equal(m.ID, id)
}
