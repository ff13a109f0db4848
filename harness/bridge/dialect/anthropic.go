package dialect

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// Anthropic Messages: POST /v1/messages (Claude Code adds ?beta=true).

type antRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"input_schema"`
		Type        string         `json:"type"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type antBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (s *server) anthropic(w http.ResponseWriter, r *http.Request, body []byte) bool {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		// Claude Code counts tokens before some requests: an estimate, never
		// a model call.
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": len(body) / 4})
		return true
	default:
		return false
	}
	c, err := s.antDecode(body)
	if err != nil {
		s.o.Observe("anthropic: refused a request the dialect does not allow: %v", err)
		writeJSON(w, http.StatusBadRequest, antError("invalid_request_error", err.Error()))
		return true
	}
	c.Path = r.URL.Path
	res, err := s.call(r.Context(), c)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, antError("api_error", "conform: "+err.Error()))
		return true
	}
	rp := fold(res)
	if rp.err != nil && (!c.Stream || !rp.before) {
		st, body := antErrorOf(rp.err)
		retryAfter(w, rp.err)
		writeJSON(w, st, body)
		return true
	}
	if c.Stream {
		s.antStream(w, c.Params.Model, rp)
	} else {
		writeJSON(w, http.StatusOK, s.antMessage(c.Params.Model, rp))
	}
	return true
}

func (s *server) antDecode(body []byte) (Call, error) {
	var q antRequest
	if err := json.Unmarshal(body, &q); err != nil {
		return Call{}, badf("body is not a Messages request: %v", err)
	}
	if q.Model == "" {
		return Call{}, badf("model: field required")
	}
	if len(q.Messages) == 0 {
		return Call{}, badf("messages: at least one message is required")
	}
	c := Call{Stream: q.Stream, MaxTokens: q.MaxTokens}
	c.Params.Model = q.Model
	sys, err := antSystem(q.System)
	if err != nil {
		return Call{}, badf("system: %v", err)
	}
	var msgs []wire.Message
	if sys != "" {
		msgs = append(msgs, wire.Message{Role: "system", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: sys}}})
	}
	c.System = sys
	for i, m := range q.Messages {
		switch m.Role {
		case "user", "assistant", "system": // system: Claude Code's quirk, accepted
		default:
			return Call{}, badf("messages.%d.role: %q is not user or assistant", i, m.Role)
		}
		wm := wire.Message{Role: m.Role}
		var str string
		if json.Unmarshal(m.Content, &str) == nil {
			wm.Content = []wire.ContentBlock{{Type: wire.BlockText, Text: str}}
		} else {
			var bs []antBlock
			if err := json.Unmarshal(m.Content, &bs); err != nil {
				return Call{}, badf("messages.%d.content: neither a string nor a list of blocks", i)
			}
			for j, b := range bs {
				switch b.Type {
				case "text":
					wm.Content = append(wm.Content, wire.ContentBlock{Type: wire.BlockText, Text: b.Text})
				case "tool_use":
					if m.Role != "assistant" {
						return Call{}, badf("messages.%d.content.%d: tool_use in a %s message", i, j, m.Role)
					}
					in := b.Input
					if len(in) == 0 {
						in = json.RawMessage(`{}`)
					}
					wm.Content = append(wm.Content, wire.ContentBlock{Type: wire.BlockToolUse, ID: b.ID, Name: s.wireName(b.Name), Input: canonicalInput(string(in))})
				case "tool_result":
					t, err := partsText(b.Content)
					if err != nil {
						return Call{}, badf("messages.%d.content.%d.content: %v", i, j, err)
					}
					wm.Content = append(wm.Content, wire.ContentBlock{Type: wire.BlockToolResult, ToolUseID: b.ToolUseID, Content: t, IsError: b.IsError})
				case "thinking", "redacted_thinking", "image", "document":
					// Not part of the canonical history.
				default:
					return Call{}, badf("messages.%d.content.%d.type: unknown block type %q", i, j, b.Type)
				}
			}
		}
		if m.Role == "system" {
			for _, b := range wm.Content {
				c.System += "\n" + b.Text
			}
		}
		msgs = append(msgs, wm)
	}
	c.Params.Messages = msgs
	var ts []wire.ToolSpec
	for _, t := range q.Tools {
		if t.Name == "" {
			return Call{}, badf("tools: a tool without a name")
		}
		ts = append(ts, wire.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	c.Params.Tools = s.offered(ts)
	return c, nil
}

func antSystem(raw json.RawMessage) (string, error) {
	return partsText(raw)
}

func antError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

// antErrorOf is Anthropic's status and body for a model error.
func antErrorOf(e *wire.ModelError) (int, map[string]any) {
	msg := e.Message
	switch e.Category {
	case wire.ModelErrRateLimited:
		return http.StatusTooManyRequests, antError("rate_limit_error", orDefault(msg, "Number of request tokens has exceeded your per-minute rate limit"))
	case wire.ModelErrOverloaded:
		return 529, antError("overloaded_error", orDefault(msg, "Overloaded"))
	case wire.ModelErrContextLength:
		return http.StatusBadRequest, antError("invalid_request_error", orDefault(msg, "prompt is too long: 210000 tokens > 200000 maximum"))
	case wire.ModelErrAuth:
		return http.StatusUnauthorized, antError("authentication_error", orDefault(msg, "invalid x-api-key"))
	case wire.ModelErrInvalidRequest:
		return http.StatusBadRequest, antError("invalid_request_error", orDefault(msg, "invalid request"))
	case wire.ModelErrContentFiltered:
		return http.StatusBadRequest, antError("invalid_request_error", orDefault(msg, "Output blocked by content filtering policy"))
	}
	return http.StatusInternalServerError, antError("api_error", orDefault(msg, "Internal server error"))
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

func antStop(s string) string {
	switch s {
	case "end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal":
		return s
	case "content_filtered":
		return "refusal"
	case "":
		return "end_turn"
	}
	return s
}

func antUsage(u wire.Usage) map[string]any {
	m := map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens}
	if u.CacheReadTokens != nil {
		m["cache_read_input_tokens"] = *u.CacheReadTokens
	}
	if u.CacheWriteTokens != nil {
		m["cache_creation_input_tokens"] = *u.CacheWriteTokens
	}
	return m
}

func (s *server) antBlocks(rp reply) []map[string]any {
	bs := []map[string]any{}
	if rp.text != "" {
		bs = append(bs, map[string]any{"type": "text", "text": rp.text})
	}
	for _, c := range rp.calls {
		bs = append(bs, map[string]any{"type": "tool_use", "id": c.ID, "name": s.o.ToAgent(c.Name), "input": c.Input})
	}
	return bs
}

func (s *server) antMessage(model string, rp reply) map[string]any {
	return map[string]any{
		"id": s.id("msg_conform_"), "type": "message", "role": "assistant", "model": model,
		"content": s.antBlocks(rp), "stop_reason": antStop(rp.stop), "stop_sequence": nil,
		"usage": antUsage(rp.usage),
	}
}

func (s *server) antStream(w http.ResponseWriter, model string, rp reply) {
	out := startSSE(w)
	start := antUsage(rp.usage)
	start["output_tokens"] = 0
	out.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": s.id("msg_conform_"), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": start,
	}})
	i := 0
	if rp.text != "" {
		out.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
		out.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": rp.text}})
		out.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	for _, c := range rp.calls {
		out.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": s.o.ToAgent(c.Name), "input": map[string]any{}}})
		out.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(c.Input)}})
		out.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	if rp.err != nil {
		_, body := antErrorOf(rp.err)
		out.event("error", body)
		return
	}
	out.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": antStop(rp.stop), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": rp.usage.OutputTokens}})
	out.event("message_stop", map[string]any{"type": "message_stop"})
}
