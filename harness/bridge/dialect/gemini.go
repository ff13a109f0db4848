package dialect

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// Gemini: POST /v1beta/models/MODEL:generateContent and
// :streamGenerateContent?alt=sse (v1 and v1alpha too). Gemini's function
// calls may carry no id; Gemini CLI invents its own functionResponse ids,
// so a response is paired with the earliest open call of its name.

type gemPart struct {
	Text         string `json:"text,omitempty"`
	Thought      bool   `json:"thought,omitempty"`
	FunctionCall *struct {
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		ID       string         `json:"id"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse,omitempty"`
}

type gemContent struct {
	Role  string    `json:"role"`
	Parts []gemPart `json:"parts"`
}

type gemRequest struct {
	Contents          []gemContent `json:"contents"`
	SystemInstruction *gemContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name                 string         `json:"name"`
			Description          string         `json:"description"`
			Parameters           map[string]any `json:"parameters"`
			ParametersJSONSchema map[string]any `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig *struct {
		ResponseMimeType   string         `json:"responseMimeType"`
		ResponseSchema     map[string]any `json:"responseSchema"`
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		MaxOutputTokens    int            `json:"maxOutputTokens"`
	} `json:"generationConfig"`
}

func (s *server) gemini(w http.ResponseWriter, r *http.Request, body []byte) bool {
	p := r.URL.Path
	i := strings.LastIndex(p, ":")
	if r.Method != http.MethodPost || i < 0 || !strings.Contains(p, "/models/") {
		return false
	}
	method := p[i+1:]
	if method != "generateContent" && method != "streamGenerateContent" {
		if method == "countTokens" {
			writeJSON(w, http.StatusOK, map[string]any{"totalTokens": len(body) / 4})
			return true
		}
		return false
	}
	model := p[strings.Index(p, "/models/")+len("/models/") : i]
	stream := method == "streamGenerateContent"
	c, err := s.gemDecode(body)
	if err != nil {
		s.o.Observe("gemini: refused a request the dialect does not allow: %v", err)
		writeJSON(w, http.StatusBadRequest, gemError(400, "INVALID_ARGUMENT", err.Error(), nil))
		return true
	}
	c.Path, c.Stream, c.Params.Model = p, stream, model
	res, err := s.call(r.Context(), c)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, gemError(500, "INTERNAL", "conform: "+err.Error(), nil))
		return true
	}
	rp := fold(res)
	if rp.err != nil && (!stream || !rp.before) {
		st, b := gemErrorOf(rp.err)
		retryAfter(w, rp.err)
		writeJSON(w, st, b)
		return true
	}
	parts := []any{}
	if rp.text != "" {
		parts = append(parts, map[string]any{"text": rp.text})
	}
	for _, c := range rp.calls {
		var args map[string]any
		_ = json.Unmarshal(c.Input, &args)
		if args == nil {
			args = map[string]any{}
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.ID, "name": s.o.ToAgent(c.Name), "args": args}})
	}
	cand := func(ps []any, finish string) map[string]any {
		m := map[string]any{"content": map[string]any{"role": "model", "parts": ps}, "index": 0}
		if finish != "" {
			m["finishReason"] = finish
		}
		return m
	}
	whole := map[string]any{"candidates": []any{cand(parts, gemStop(rp.stop))}, "usageMetadata": gemUsage(rp.usage), "modelVersion": model, "responseId": s.id("conform-")}
	if !stream {
		writeJSON(w, http.StatusOK, whole)
		return true
	}
	out := startSSE(w)
	if rp.err != nil {
		out.event("", map[string]any{"candidates": []any{cand(parts, "")}, "modelVersion": model})
		_, b := gemErrorOf(rp.err)
		out.event("", b)
		return true
	}
	out.event("", whole)
	return true
}

func (s *server) gemDecode(body []byte) (Call, error) {
	var q gemRequest
	if err := json.Unmarshal(body, &q); err != nil {
		return Call{}, badf("Invalid JSON payload received. %v", err)
	}
	if len(q.Contents) == 0 {
		return Call{}, badf("* GenerateContentRequest.contents: contents is not specified")
	}
	var c Call
	if q.SystemInstruction != nil {
		for _, p := range q.SystemInstruction.Parts {
			c.System += p.Text
		}
		c.Params.Messages = append(c.Params.Messages, wire.Message{Role: "system", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: c.System}}})
	}
	if g := q.GenerationConfig; g != nil {
		c.MaxTokens = g.MaxOutputTokens
		if g.ResponseMimeType == "application/json" {
			c.JSONSchema = g.ResponseJSONSchema
			if c.JSONSchema == nil {
				c.JSONSchema = g.ResponseSchema
			}
			if c.JSONSchema == nil {
				c.JSONSchema = map[string]any{}
			}
		}
	}
	type open struct{ id, name string }
	var pending []open
	n := 0
	for i, ct := range q.Contents {
		role := ct.Role
		switch role {
		case "", "user":
			role = "user"
		case "model":
			role = "assistant"
		default:
			return Call{}, badf("* GenerateContentRequest.contents[%d].role: %q is not user or model", i, ct.Role)
		}
		wm := wire.Message{Role: role}
		for j, p := range ct.Parts {
			switch {
			case p.FunctionCall != nil:
				if role != "assistant" {
					return Call{}, badf("* contents[%d].parts[%d]: functionCall in a user turn", i, j)
				}
				n++
				id := p.FunctionCall.ID
				if id == "" {
					id = fmt.Sprintf("gemini-call-%d", n)
				}
				in, _ := json.Marshal(p.FunctionCall.Args)
				if p.FunctionCall.Args == nil {
					in = []byte(`{}`)
				}
				wm.Content = append(wm.Content, wire.ContentBlock{Type: wire.BlockToolUse, ID: id, Name: s.wireName(p.FunctionCall.Name), Input: in})
				pending = append(pending, open{id, p.FunctionCall.Name})
			case p.FunctionResponse != nil:
				id := ""
				for k, o := range pending {
					if o.name == p.FunctionResponse.Name {
						id = o.id
						pending = append(pending[:k], pending[k+1:]...)
						break
					}
				}
				if id == "" {
					id = p.FunctionResponse.ID
				}
				out, _ := json.Marshal(p.FunctionResponse.Response)
				text := string(out)
				// Agents wrap a tool's output as {"output": "..."} (or
				// {"error": "..."}): the text is the output itself.
				isErr := false
				if v, ok := p.FunctionResponse.Response["output"].(string); ok && len(p.FunctionResponse.Response) == 1 {
					text = v
				} else if v, ok := p.FunctionResponse.Response["error"].(string); ok && len(p.FunctionResponse.Response) == 1 {
					text, isErr = v, true
				}
				wm.Content = append(wm.Content, wire.ContentBlock{Type: wire.BlockToolResult, ToolUseID: id, Content: text, IsError: isErr})
			case p.Thought:
			default:
				if p.Text != "" {
					wm.Content = append(wm.Content, wire.ContentBlock{Type: wire.BlockText, Text: p.Text})
				}
			}
		}
		c.Params.Messages = append(c.Params.Messages, wm)
	}
	var ts []wire.ToolSpec
	for _, t := range q.Tools {
		for _, f := range t.FunctionDeclarations {
			sc := f.ParametersJSONSchema
			if sc == nil {
				sc = f.Parameters
			}
			ts = append(ts, wire.ToolSpec{Name: f.Name, Description: f.Description, InputSchema: sc})
		}
	}
	c.Params.Tools = s.offered(ts)
	return c, nil
}

func gemStop(s string) string {
	switch s {
	case "max_tokens":
		return "MAX_TOKENS"
	case "content_filtered", "refusal":
		return "SAFETY"
	}
	return "STOP"
}

// gemUsage: promptTokenCount includes cached content; thoughts are counted
// apart from candidates.
func gemUsage(u wire.Usage) map[string]any {
	in := u.InputTokens + val(u.CacheReadTokens) + val(u.CacheWriteTokens)
	m := map[string]any{"promptTokenCount": in, "candidatesTokenCount": u.OutputTokens, "totalTokenCount": in + u.OutputTokens + val(u.ReasoningTokens)}
	if u.CacheReadTokens != nil {
		m["cachedContentTokenCount"] = *u.CacheReadTokens
	}
	if u.ReasoningTokens != nil {
		m["thoughtsTokenCount"] = *u.ReasoningTokens
	}
	return m
}

func gemError(code int, status, msg string, details []any) map[string]any {
	e := map[string]any{"code": code, "message": msg, "status": status}
	if details != nil {
		e["details"] = details
	}
	return map[string]any{"error": e}
}

// gemErrorOf is Google's status and body for a model error.
func gemErrorOf(e *wire.ModelError) (int, map[string]any) {
	msg := e.Message
	switch e.Category {
	case wire.ModelErrRateLimited:
		var details []any
		if e.RetryAfterMS != nil {
			details = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fmt.Sprintf("%.3fs", float64(*e.RetryAfterMS)/1000)}}
		}
		return 429, gemError(429, "RESOURCE_EXHAUSTED", orDefault(msg, "Resource has been exhausted (e.g. check quota)."), details)
	case wire.ModelErrOverloaded:
		return 503, gemError(503, "UNAVAILABLE", orDefault(msg, "The model is overloaded. Please try again later."), nil)
	case wire.ModelErrContextLength:
		return 400, gemError(400, "INVALID_ARGUMENT", orDefault(msg, "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576)."), nil)
	case wire.ModelErrAuth:
		return 400, gemError(400, "INVALID_ARGUMENT", orDefault(msg, "API key not valid. Please pass a valid API key."), []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}})
	case wire.ModelErrInvalidRequest:
		return 400, gemError(400, "INVALID_ARGUMENT", orDefault(msg, "Request contains an invalid argument."), nil)
	case wire.ModelErrContentFiltered:
		return 400, gemError(400, "INVALID_ARGUMENT", orDefault(msg, "The request was blocked by the content filter."), nil)
	}
	return 500, gemError(500, "INTERNAL", orDefault(msg, "An internal error has occurred."), nil)
}
