package dialect

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// OpenAI Chat Completions: POST /v1/chat/completions (also /chat/completions
// for clients whose base URL already ends in /v1).

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream         bool `json:"stream"`
	MaxTokens      int  `json:"max_tokens"`
	MaxCompletion  int  `json:"max_completion_tokens"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (s *server) chat(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/chat/completions") {
		return false
	}
	c, err := s.chatDecode(body)
	rp, ok := s.oaiCall(w, r, c, err)
	if !ok {
		return true
	}
	id, model, now := s.id("chatcmpl-conform-"), c.Params.Model, time.Now().Unix()
	if !c.Stream {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
		if rp.text != "" {
			msg["content"] = rp.text
		}
		if len(rp.calls) > 0 {
			msg["tool_calls"] = s.chatCalls(rp, false)
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": now, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": chatStop(rp.stop), "logprobs": nil}},
			"usage":   chatUsage(rp.usage),
		})
		return true
	}
	out := startSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": now, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}}
	}
	out.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if rp.text != "" {
		out.event("", chunk(map[string]any{"content": rp.text}, nil))
	}
	for i, tc := range s.chatCalls(rp, true) {
		_ = i
		out.event("", chunk(map[string]any{"tool_calls": []any{tc}}, nil))
	}
	if rp.err != nil {
		_, b := oaiErrorOf(rp.err)
		out.event("", b)
		return true
	}
	out.event("", chunk(map[string]any{}, chatStop(rp.stop)))
	out.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": now, "model": model, "choices": []any{}, "usage": chatUsage(rp.usage)})
	out.raw("[DONE]")
	return true
}

func (s *server) chatCalls(rp reply, indexed bool) []any {
	var out []any
	for i, c := range rp.calls {
		tc := map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": s.o.ToAgent(c.Name), "arguments": string(c.Input)}}
		if indexed {
			tc["index"] = i
		}
		out = append(out, tc)
	}
	return out
}

func (s *server) chatDecode(body []byte) (Call, error) {
	var q chatRequest
	if err := json.Unmarshal(body, &q); err != nil {
		return Call{}, badf("body is not a chat completions request: %v", err)
	}
	if q.Model == "" {
		return Call{}, badf("you must provide a model parameter")
	}
	if len(q.Messages) == 0 {
		return Call{}, badf("messages: at least one message is required")
	}
	c := Call{Stream: q.Stream, MaxTokens: max(q.MaxTokens, q.MaxCompletion)}
	c.Params.Model = q.Model
	if q.ResponseFormat != nil && q.ResponseFormat.JSONSchema != nil {
		c.JSONSchema = q.ResponseFormat.JSONSchema.Schema
		if c.JSONSchema == nil {
			c.JSONSchema = map[string]any{}
		}
	}
	for i, m := range q.Messages {
		t, err := partsText(m.Content)
		if err != nil {
			return Call{}, badf("messages[%d].content: %v", i, err)
		}
		switch m.Role {
		case "system", "developer":
			c.System += t
			c.Params.Messages = append(c.Params.Messages, wire.Message{Role: "system", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: t}}})
		case "user":
			c.Params.Messages = append(c.Params.Messages, wire.Message{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: t}}})
		case "assistant":
			wm := wire.Message{Role: "assistant"}
			if t != "" {
				wm.Content = append(wm.Content, wire.ContentBlock{Type: wire.BlockText, Text: t})
			}
			for _, tc := range m.ToolCalls {
				wm.Content = append(wm.Content, wire.ContentBlock{Type: wire.BlockToolUse, ID: tc.ID, Name: s.wireName(tc.Function.Name), Input: canonicalInput(tc.Function.Arguments)})
			}
			c.Params.Messages = append(c.Params.Messages, wm)
		case "tool":
			if m.ToolCallID == "" {
				return Call{}, badf("messages[%d]: a tool message needs tool_call_id", i)
			}
			b := wire.ContentBlock{Type: wire.BlockToolResult, ToolUseID: m.ToolCallID, Content: t}
			// Consecutive tool results are one user message of the canonical
			// history, as the suite's kernels send them.
			if n := len(c.Params.Messages); n > 0 && c.Params.Messages[n-1].Role == "user" && isResults(c.Params.Messages[n-1]) {
				c.Params.Messages[n-1].Content = append(c.Params.Messages[n-1].Content, b)
			} else {
				c.Params.Messages = append(c.Params.Messages, wire.Message{Role: "user", Content: []wire.ContentBlock{b}})
			}
		default:
			return Call{}, badf("messages[%d].role: %q is not system, developer, user, assistant or tool", i, m.Role)
		}
	}
	var ts []wire.ToolSpec
	for i, t := range q.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return Call{}, badf("tools[%d]: only named function tools are supported", i)
		}
		ts = append(ts, wire.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters})
	}
	c.Params.Tools = s.offered(ts)
	return c, nil
}

func isResults(m wire.Message) bool {
	for _, b := range m.Content {
		if b.Type != wire.BlockToolResult {
			return false
		}
	}
	return len(m.Content) > 0
}

func chatStop(s string) string {
	switch s {
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "content_filtered", "refusal":
		return "content_filter"
	}
	return "stop"
}

// chatUsage: prompt_tokens include cached ones, completion_tokens include
// reasoning ones.
func chatUsage(u wire.Usage) map[string]any {
	in := u.InputTokens + val(u.CacheReadTokens) + val(u.CacheWriteTokens)
	out := u.OutputTokens + val(u.ReasoningTokens)
	m := map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
	if u.CacheReadTokens != nil {
		m["prompt_tokens_details"] = map[string]any{"cached_tokens": *u.CacheReadTokens}
	}
	if u.ReasoningTokens != nil {
		m["completion_tokens_details"] = map[string]any{"reasoning_tokens": *u.ReasoningTokens}
	}
	return m
}

func oaiError(typ, code, msg string) map[string]any {
	var c any
	if code != "" {
		c = code
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}}
}

// oaiErrorOf is OpenAI's status and body for a model error.
func oaiErrorOf(e *wire.ModelError) (int, map[string]any) {
	msg := e.Message
	switch e.Category {
	case wire.ModelErrRateLimited:
		return http.StatusTooManyRequests, oaiError("requests", "rate_limit_exceeded", orDefault(msg, "Rate limit reached for requests"))
	case wire.ModelErrOverloaded:
		return http.StatusServiceUnavailable, oaiError("server_error", "server_is_overloaded", orDefault(msg, "The server is overloaded or not ready yet."))
	case wire.ModelErrContextLength:
		return http.StatusBadRequest, oaiError("invalid_request_error", "context_length_exceeded", orDefault(msg, "This model's maximum context length is 128000 tokens."))
	case wire.ModelErrAuth:
		return http.StatusUnauthorized, oaiError("invalid_request_error", "invalid_api_key", orDefault(msg, "Incorrect API key provided."))
	case wire.ModelErrInvalidRequest:
		return http.StatusBadRequest, oaiError("invalid_request_error", "", orDefault(msg, "Invalid request."))
	case wire.ModelErrContentFiltered:
		return http.StatusBadRequest, oaiError("invalid_request_error", "content_filter", orDefault(msg, "The response was filtered due to the prompt triggering content management policy."))
	}
	return http.StatusInternalServerError, oaiError("server_error", "", orDefault(msg, "The server had an error while processing your request."))
}

// oaiCall is what both OpenAI dialects do with a decoded request (decodeErr:
// it could not be decoded): refuse it, or pass it to the harness and fold
// the answer. An error the answer holds is written here unless it comes
// mid-stream; ok false: the response is written.
func (s *server) oaiCall(w http.ResponseWriter, r *http.Request, c Call, decodeErr error) (rp reply, ok bool) {
	if decodeErr != nil {
		s.o.Observe("%s: refused a request the dialect does not allow: %v", s.name, decodeErr)
		writeJSON(w, http.StatusBadRequest, oaiError("invalid_request_error", "", decodeErr.Error()))
		return reply{}, false
	}
	c.Path = r.URL.Path
	res, err := s.call(r.Context(), c)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, oaiError("server_error", "", "conform: "+err.Error()))
		return reply{}, false
	}
	rp = fold(res)
	if rp.err != nil && (!c.Stream || !rp.before) {
		st, b := oaiErrorOf(rp.err)
		retryAfter(w, rp.err)
		writeJSON(w, st, b)
		return reply{}, false
	}
	return rp, true
}
