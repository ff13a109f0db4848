package dialect

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

// script is a Streamer that answers from a list and records every request.
type script struct {
	mu      sync.Mutex
	answers []wire.ModelStreamResult
	got     []wire.ModelStreamParams
}

func (s *script) stream(_ context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, p)
	if len(s.answers) == 0 {
		return wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventTextDelta, Text: "done"}, {Type: wire.EventUsage, Usage: &wire.Usage{InputTokens: 1, OutputTokens: 1}}, {Type: wire.EventStop, StopReason: "end_turn"}}}, nil
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func serve(t *testing.T, name string, answers ...wire.ModelStreamResult) (*script, *httptest.Server) {
	t.Helper()
	sc := &script{answers: answers}
	h, err := New(name, sc.stream, Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return sc, srv
}

// toolTurn is a reply with text, one tool call and every usage counter.
func toolTurn() wire.ModelStreamResult {
	return wire.ModelStreamResult{Events: []wire.StreamEvent{
		{Type: wire.EventTextDelta, Text: "reading"},
		{Type: wire.EventToolCall, ID: "call_1", Name: "read", Input: json.RawMessage(`{"path":"a"}`)},
		{Type: wire.EventUsage, Usage: &wire.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: ptr(30), CacheWriteTokens: ptr(5), ReasoningTokens: ptr(7)}},
		{Type: wire.EventStop, StopReason: "tool_use"},
	}}
}

func failing(cat string, retryMS int64) wire.ModelStreamResult {
	e := &wire.ModelError{Category: cat, Message: "scripted " + cat, Retryable: true}
	if retryMS > 0 {
		e.RetryAfterMS = &retryMS
	}
	return wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventErrorSE, Error: e}}}
}

// halfway fails after its text has been streamed.
func halfway() wire.ModelStreamResult {
	return wire.ModelStreamResult{Events: []wire.StreamEvent{
		{Type: wire.EventTextDelta, Text: "partial"},
		{Type: wire.EventErrorSE, Error: &wire.ModelError{Category: wire.ModelErrOverloaded, Message: "gone mid-stream", Retryable: true}},
	}}
}

var readSchema = map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}

func TestUnknownDialect(t *testing.T) {
	if _, err := New("cobol", nil, Options{}); err == nil {
		t.Fatal("want an error for an unknown dialect")
	}
}

func TestFit(t *testing.T) {
	got := Fit(map[string]any{"type": "object", "properties": map[string]any{
		"reasoning": map[string]any{"type": "string"}, "model_choice": map[string]any{"type": "string", "enum": []any{"flash", "pro"}}}})
	b, _ := json.Marshal(got)
	if string(b) != `{"model_choice":"flash","reasoning":"conform"}` {
		t.Fatalf("Fit = %s", b)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func post(h http.Handler, path, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", path, strings.NewReader(body)))
	return rec
}
