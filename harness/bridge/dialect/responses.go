package dialect

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// OpenAI Responses: POST /v1/responses (/responses under a /v1 base URL).
// Codex offers MCP tools inside namespace tools; a call of one carries the
// namespace beside the tool's own name.

type respTool struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
	Tools       []respTool     `json:"tools"`
}

type respRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Tools        []respTool      `json:"tools"`
	Stream       bool            `json:"stream"`
	MaxOutput    int             `json:"max_output_tokens"`
}

type respItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// nsSep joins a namespace and a tool name into the agent-side name, as
// Claude Code names MCP tools (mcp__server__tool).
const nsSep = "__"

func (s *server) responses(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/responses" && r.URL.Path != "/responses") {
		return false
	}
	c, ns, err := s.respDecode(body)
	rp, ok := s.oaiCall(w, r, c, err)
	if !ok {
		return true
	}
	id := s.id("resp_conform_")
	now := time.Now().Unix()
	items := s.respItems(rp, ns)
	resp := func(status string, output []any, withUsage bool) map[string]any {
		m := map[string]any{"id": id, "object": "response", "created_at": now, "status": status, "model": c.Params.Model,
			"output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}, "error": nil, "incomplete_details": nil}
		if withUsage {
			m["usage"] = respUsage(rp.usage)
		}
		if status == "incomplete" {
			m["incomplete_details"] = map[string]any{"reason": respIncomplete(rp.stop)}
		}
		return m
	}
	final := "completed"
	if rp.stop == "max_tokens" || rp.stop == "content_filtered" || rp.stop == "refusal" {
		final = "incomplete"
	}
	if !c.Stream {
		writeJSON(w, http.StatusOK, resp(final, items, true))
		return true
	}
	out := startSSE(w)
	seq := 0
	ev := func(typ string, m map[string]any) {
		m["type"] = typ
		m["sequence_number"] = seq
		seq++
		out.event(typ, m)
	}
	ev("response.created", map[string]any{"response": resp("in_progress", []any{}, false)})
	for i, it := range items {
		item := it.(map[string]any)
		if item["type"] == "message" {
			open := map[string]any{"type": "message", "id": item["id"], "status": "in_progress", "role": "assistant", "content": []any{}}
			ev("response.output_item.added", map[string]any{"output_index": i, "item": open})
			ev("response.content_part.added", map[string]any{"output_index": i, "item_id": item["id"], "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			ev("response.output_text.delta", map[string]any{"output_index": i, "item_id": item["id"], "content_index": 0, "delta": rp.text, "logprobs": []any{}})
			ev("response.output_text.done", map[string]any{"output_index": i, "item_id": item["id"], "content_index": 0, "text": rp.text, "logprobs": []any{}})
			ev("response.content_part.done", map[string]any{"output_index": i, "item_id": item["id"], "content_index": 0, "part": map[string]any{"type": "output_text", "text": rp.text, "annotations": []any{}}})
		} else {
			open := map[string]any{}
			for k, v := range item {
				open[k] = v
			}
			open["arguments"], open["status"] = "", "in_progress"
			ev("response.output_item.added", map[string]any{"output_index": i, "item": open})
			ev("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": item["id"], "delta": item["arguments"]})
			ev("response.function_call_arguments.done", map[string]any{"output_index": i, "item_id": item["id"], "arguments": item["arguments"], "name": item["name"]})
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	if rp.err != nil {
		_, b := oaiErrorOf(rp.err)
		e := b["error"].(map[string]any)
		f := resp("failed", items, false)
		f["error"] = map[string]any{"code": orDefault(strOf(e["code"]), "server_error"), "message": e["message"]}
		ev("response.failed", map[string]any{"response": f})
		return true
	}
	kind := "response.completed"
	if final == "incomplete" {
		kind = "response.incomplete"
	}
	ev(kind, map[string]any{"response": resp(final, items, true)})
	return true
}

func strOf(v any) string {
	s, _ := v.(string)
	return s
}

func respIncomplete(stop string) string {
	if stop == "max_tokens" {
		return "max_output_tokens"
	}
	return "content_filter"
}

func (s *server) respItems(rp reply, ns map[string][2]string) []any {
	items := []any{}
	if rp.text != "" {
		items = append(items, map[string]any{"type": "message", "id": s.id("msg_conform_"), "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": rp.text, "annotations": []any{}}}})
	}
	for _, c := range rp.calls {
		name := s.o.ToAgent(c.Name)
		it := map[string]any{"type": "function_call", "id": s.id("fc_conform_"), "call_id": c.ID, "name": name, "arguments": string(c.Input), "status": "completed"}
		if pair, ok := ns[name]; ok {
			it["namespace"], it["name"] = pair[0], pair[1]
		}
		items = append(items, it)
	}
	return items
}

// respUsage: input_tokens include cached ones, output_tokens include
// reasoning ones.
func respUsage(u wire.Usage) map[string]any {
	in := u.InputTokens + val(u.CacheReadTokens) + val(u.CacheWriteTokens)
	out := u.OutputTokens + val(u.ReasoningTokens)
	return map[string]any{"input_tokens": in, "output_tokens": out, "total_tokens": in + out,
		"input_tokens_details":  map[string]any{"cached_tokens": val(u.CacheReadTokens)},
		"output_tokens_details": map[string]any{"reasoning_tokens": val(u.ReasoningTokens)}}
}

// respDecode also returns the namespace tools' agent-side names, so that a
// scripted call of one is sent back with its namespace.
func (s *server) respDecode(body []byte) (Call, map[string][2]string, error) {
	var q respRequest
	if err := json.Unmarshal(body, &q); err != nil {
		return Call{}, nil, badf("body is not a Responses request: %v", err)
	}
	if q.Model == "" {
		return Call{}, nil, badf("model: field required")
	}
	c := Call{Stream: q.Stream, MaxTokens: q.MaxOutput}
	c.Params.Model = q.Model
	if q.Instructions != "" {
		c.System = q.Instructions
		c.Params.Messages = append(c.Params.Messages, wire.Message{Role: "system", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: q.Instructions}}})
	}
	var str string
	if json.Unmarshal(q.Input, &str) == nil {
		c.Params.Messages = append(c.Params.Messages, wire.Message{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: str}}})
	} else {
		var items []respItem
		if err := json.Unmarshal(q.Input, &items); err != nil {
			return Call{}, nil, badf("input: neither a string nor a list of items")
		}
		for i, it := range items {
			if err := s.respItem(&c, i, it); err != nil {
				return Call{}, nil, err
			}
		}
	}
	if len(c.Params.Messages) == 0 {
		return Call{}, nil, badf("input: empty")
	}
	ns := map[string][2]string{}
	var ts []wire.ToolSpec
	for i, t := range q.Tools {
		switch t.Type {
		case "function":
			ts = append(ts, wire.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.Parameters})
		case "namespace":
			for _, sub := range t.Tools {
				full := t.Name + nsSep + sub.Name
				ns[full] = [2]string{t.Name, sub.Name}
				ts = append(ts, wire.ToolSpec{Name: full, Description: sub.Description, InputSchema: sub.Parameters})
			}
		case "":
			return Call{}, nil, badf("tools[%d]: missing type", i)
		default:
			// Hosted tools (web_search, local_shell, ...) are the agent's
			// own: offered to nobody the suite scripts.
		}
	}
	c.Params.Tools = s.offered(ts)
	return c, ns, nil
}

func (s *server) respItem(c *Call, i int, it respItem) error {
	ms := &c.Params.Messages
	switch {
	case it.Type == "message" || (it.Type == "" && it.Role != ""):
		t, err := partsText(it.Content)
		if err != nil {
			return badf("input[%d].content: %v", i, err)
		}
		role := it.Role
		switch role {
		case "system", "developer":
			c.System += t
			role = "system"
		case "user", "assistant":
		default:
			return badf("input[%d].role: %q", i, it.Role)
		}
		*ms = append(*ms, wire.Message{Role: role, Content: []wire.ContentBlock{{Type: wire.BlockText, Text: t}}})
	case it.Type == "function_call":
		name := it.Name
		if it.Namespace != "" {
			name = it.Namespace + nsSep + it.Name
		}
		b := wire.ContentBlock{Type: wire.BlockToolUse, ID: it.CallID, Name: s.wireName(name), Input: canonicalInput(it.Arguments)}
		if n := len(*ms); n > 0 && (*ms)[n-1].Role == "assistant" {
			(*ms)[n-1].Content = append((*ms)[n-1].Content, b)
		} else {
			*ms = append(*ms, wire.Message{Role: "assistant", Content: []wire.ContentBlock{b}})
		}
	case it.Type == "function_call_output":
		if it.CallID == "" {
			return badf("input[%d]: function_call_output needs call_id", i)
		}
		t, err := partsText(it.Output)
		if err != nil {
			return badf("input[%d].output: %v", i, err)
		}
		b := wire.ContentBlock{Type: wire.BlockToolResult, ToolUseID: it.CallID, Content: t}
		if n := len(*ms); n > 0 && (*ms)[n-1].Role == "user" && isResults((*ms)[n-1]) {
			(*ms)[n-1].Content = append((*ms)[n-1].Content, b)
		} else {
			*ms = append(*ms, wire.Message{Role: "user", Content: []wire.ContentBlock{b}})
		}
	case it.Type == "reasoning" || strings.HasSuffix(it.Type, "_call") || strings.HasSuffix(it.Type, "_call_output"):
		// Reasoning and hosted-tool items are not part of the canonical
		// history.
	default:
		return badf("input[%d].type: unknown item type %q", i, it.Type)
	}
	return nil
}
