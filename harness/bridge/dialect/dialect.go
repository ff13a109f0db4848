package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/agentconform/conform/spec/wire"
)

// Streamer answers one model request: the agent kernel's Host.Stream.
type Streamer func(ctx context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error)

// Dialect names.
const (
	Anthropic       = "anthropic"
	OpenAIChat      = "openai-chat"
	OpenAIResponses = "openai-responses"
	Gemini          = "gemini"
)

// Names lists the dialects New knows.
func Names() []string { return []string{Anthropic, OpenAIChat, OpenAIResponses, Gemini} }

// Call is one decoded request, as an Intercept sees it.
type Call struct {
	Dialect string
	Path    string
	Stream  bool
	// Params is the request as model/stream would carry it (Purpose "turn",
	// Attempt 1: the caller fills call context and attempt).
	Params wire.ModelStreamParams
	// System is the request's system text (top-level and system messages).
	System string
	// JSONSchema is the response schema when the request asks for
	// structured JSON output (Gemini's routing call); nil otherwise.
	JSONSchema map[string]any
	// MaxTokens is the request's output limit, 0 when absent.
	MaxTokens int
}

// Options tune a server. Every field may be left zero.
type Options struct {
	// ToWire maps a tool name as the agent offers it (mcp__conform__read)
	// to the suite's (read); ok false drops the tool from the request's
	// tool list (an agent's built-in tool). Nil keeps every name.
	ToWire func(agentName string) (wireName string, ok bool)
	// OwnTool is told of each tool the agent offers that ToWire refuses
	// (one of the agent's own), and of no other name: a refused name in
	// the history (the model's call of a tool nobody has) is no offer.
	// Nil drops it.
	OwnTool func(agentName string)
	// ToAgent maps a scripted tool call's name back to the agent's.
	ToAgent func(wireName string) string
	// Intercept answers a call that is not a turn of the loop (a routing
	// or title request) without the Streamer; ok false sends it on.
	Intercept func(c Call) (r wire.ModelStreamResult, ok bool)
	// Observe receives what the server noticed that is no model call (a
	// path it does not serve, a request it refused); nil drops it.
	Observe func(format string, args ...any)
	// Other answers a request for a path the dialect does not serve
	// (Codex's analytics POST, Claude Code's count_tokens): status and JSON
	// body. Nil answers 404.
	Other func(r *http.Request, body []byte) (status int, answer any)
}

// New returns the HTTP handler of one dialect.
func New(name string, s Streamer, o Options) (http.Handler, error) {
	if o.ToWire == nil {
		o.ToWire = func(n string) (string, bool) { return n, true }
	}
	if o.ToAgent == nil {
		o.ToAgent = func(n string) string { return n }
	}
	if o.Observe == nil {
		o.Observe = func(string, ...any) {}
	}
	sv := &server{name: name, stream: s, o: o}
	switch name {
	case Anthropic:
		sv.route = sv.anthropic
	case OpenAIChat:
		sv.route = sv.chat
	case OpenAIResponses:
		sv.route = sv.responses
	case Gemini:
		sv.route = sv.gemini
	default:
		return nil, fmt.Errorf("unknown dialect %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return sv, nil
}

type server struct {
	name   string
	stream Streamer
	o      Options
	route  func(w http.ResponseWriter, r *http.Request, body []byte) bool
	seq    atomic.Int64
}

// maxBody bounds a request body: an agent that floods is refused.
const maxBody = 64 << 20

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		s.o.Observe("%s %s: unreadable or oversized body", r.Method, r.URL.Path)
		http.Error(w, "unreadable or oversized body", http.StatusRequestEntityTooLarge)
		return
	}
	if s.route(w, r, body) {
		return
	}
	if s.o.Other != nil {
		st, a := s.o.Other(r, body)
		writeJSON(w, st, a)
		return
	}
	s.o.Observe("%s %s: a path the %s dialect does not serve, answered 404", r.Method, r.URL.Path, s.name)
	writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "not found: " + r.URL.Path}})
}

// BadRequest is a request the dialect does not allow; the server answers
// it with the provider's 400 and reports it through Options.Observe and
// Rejected so that the kernel can name what the agent did.
type BadRequest struct{ Reason string }

func (b *BadRequest) Error() string { return b.Reason }

func badf(format string, args ...any) *BadRequest {
	return &BadRequest{Reason: fmt.Sprintf(format, args...)}
}

// call runs one decoded call through Intercept or the Streamer.
func (s *server) call(ctx context.Context, c Call) (wire.ModelStreamResult, error) {
	c.Dialect = s.name
	if c.Params.Purpose == "" {
		c.Params.Purpose = "turn"
	}
	if c.Params.Attempt == 0 {
		c.Params.Attempt = 1
	}
	if s.o.Intercept != nil {
		if r, ok := s.o.Intercept(c); ok {
			return r, nil
		}
	}
	return s.stream(ctx, c.Params)
}

func (s *server) id(prefix string) string { return fmt.Sprintf("%s%d", prefix, s.seq.Add(1)) }

// offered maps the agent's tools onto the suite's, dropping the ones
// ToWire refuses, in a stable order.
func (s *server) offered(ts []wire.ToolSpec) []wire.ToolSpec {
	out := []wire.ToolSpec{}
	for _, t := range ts {
		n, ok := s.o.ToWire(t.Name)
		if !ok {
			if s.o.OwnTool != nil {
				s.o.OwnTool(t.Name)
			}
			continue
		}
		t.Name = n
		out = append(out, t)
	}
	return out
}

func (s *server) wireName(n string) string {
	if w, ok := s.o.ToWire(n); ok {
		return w
	}
	return n
}

// reply is a stream result folded into what every dialect renders.
type reply struct {
	text   string
	calls  []wire.StreamEvent
	usage  wire.Usage
	stop   string
	err    *wire.ModelError
	before bool // the error came after some output
}

func fold(r wire.ModelStreamResult) reply {
	var rp reply
	for _, e := range r.Events {
		switch e.Type {
		case wire.EventTextDelta:
			rp.text += e.Text
		case wire.EventToolCall:
			if len(e.Input) == 0 {
				e.Input = json.RawMessage(`{}`)
			}
			rp.calls = append(rp.calls, e)
		case wire.EventUsage:
			if e.Usage != nil {
				rp.usage = addUsage(rp.usage, *e.Usage)
			}
		case wire.EventStop:
			rp.stop = e.StopReason
		case wire.EventErrorSE:
			rp.err = e.Error
			if rp.err == nil {
				rp.err = &wire.ModelError{Category: wire.ModelErrUnknown, Message: "model error"}
			}
			rp.before = rp.text != "" || len(rp.calls) > 0
		}
	}
	if rp.stop == "" && rp.err == nil {
		rp.stop = "end_turn"
		if len(rp.calls) > 0 {
			rp.stop = "tool_use"
		}
	}
	return rp
}

func addUsage(a, b wire.Usage) wire.Usage {
	add := func(x, y *int64) *int64 {
		if x == nil && y == nil {
			return nil
		}
		v := val(x) + val(y)
		return &v
	}
	return wire.Usage{
		InputTokens: a.InputTokens + b.InputTokens, OutputTokens: a.OutputTokens + b.OutputTokens,
		CacheReadTokens: add(a.CacheReadTokens, b.CacheReadTokens), CacheWriteTokens: add(a.CacheWriteTokens, b.CacheWriteTokens),
		ReasoningTokens: add(a.ReasoningTokens, b.ReasoningTokens),
	}
}

func val(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func ptr(v int64) *int64 { return &v }

// nz is a pointer to v, or nil for 0: a provider counter that is absent or
// zero reads back as absent.
func nz(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// retryAfter sets the retry-after headers of a rate-limit answer (seconds,
// rounded up, and the milliseconds header OpenAI and Anthropic clients read
// first).
func retryAfter(w http.ResponseWriter, e *wire.ModelError) {
	if e.RetryAfterMS == nil {
		return
	}
	ms := *e.RetryAfterMS
	w.Header().Set("retry-after-ms", strconv.FormatInt(ms, 10))
	w.Header().Set("retry-after", strconv.FormatInt((ms+999)/1000, 10))
}

// sse writes server-sent events and flushes each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (s *sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if s.f != nil {
		s.f.Flush()
	}
}

func (s *sse) raw(line string) {
	fmt.Fprintf(s.w, "data: %s\n\n", line)
	if s.f != nil {
		s.f.Flush()
	}
}

// text of a JSON value that is a string or a list of {type,text} parts.
func partsText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor a list of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// canonicalInput re-encodes a tool input so that its keys are sorted, as
// the harness compares inputs as JSON values anyway; invalid JSON is kept
// as a string value so that nothing the agent sent is lost.
func canonicalInput(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage(`{}`)
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		b, _ := json.Marshal(s)
		return b
	}
	b, _ := json.Marshal(v)
	return b
}

func schemaOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// Fit makes a value that fits a JSON schema (the subset structured-output
// requests use: type, properties, required, enum, items, anyOf), for
// answering a routing call the way the agent needs.
func Fit(schema map[string]any) any {
	if schema == nil {
		return map[string]any{}
	}
	if e, ok := schema["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := schema[k].([]any); ok && len(alts) > 0 {
			return Fit(schemaOf(alts[0]))
		}
	}
	t, _ := schema["type"].(string)
	if ts, ok := schema["type"].([]any); ok && len(ts) > 0 {
		t, _ = ts[0].(string)
	}
	switch strings.ToLower(t) {
	case "string":
		return "conform"
	case "integer", "number":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 0
	case "boolean":
		return false
	case "array":
		return []any{}
	case "null":
		return nil
	}
	props := schemaOf(schema["properties"])
	out := map[string]any{}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out[k] = Fit(schemaOf(props[k]))
	}
	return out
}
