package testagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	aopt "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	oopt "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"google.golang.org/genai"
)

func newModel(c config) (model, error) {
	switch c.dialect {
	case "anthropic":
		cl := anthropic.NewClient(aopt.WithBaseURL(c.baseURL), aopt.WithAPIKey("dummy"), aopt.WithMaxRetries(0))
		return &antModel{c: c, cl: &cl}, nil
	case "openai-chat", "openai-responses":
		cl := openai.NewClient(oopt.WithBaseURL(strings.TrimSuffix(c.baseURL, "/")+"/v1"), oopt.WithAPIKey("dummy"), oopt.WithMaxRetries(0))
		if c.dialect == "openai-chat" {
			return &chatModel{c: c, cl: &cl}, nil
		}
		return &respModel{c: c, cl: &cl}, nil
	case "gemini":
		cl, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "dummy", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: c.baseURL, APIVersion: "v1beta"}})
		if err != nil {
			return nil, err
		}
		return &gemModel{c: c, cl: cl}, nil
	}
	return nil, fmt.Errorf("unknown dialect %q", c.dialect)
}

type antModel struct {
	c  config
	cl *anthropic.Client
}

func (m *antModel) send(ctx context.Context, system string, hist []step, tools []tool) (reply, error) {
	p := anthropic.MessageNewParams{Model: anthropic.Model(m.c.model), MaxTokens: 4096, System: []anthropic.TextBlockParam{{Text: system}}}
	for _, s := range hist {
		if s.user != "" {
			p.Messages = append(p.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(s.user)))
			continue
		}
		var bs []anthropic.ContentBlockParamUnion
		if s.text != "" {
			bs = append(bs, anthropic.NewTextBlock(s.text))
		}
		for _, c := range s.calls {
			bs = append(bs, anthropic.NewToolUseBlock(c.id, c.input, c.name))
		}
		p.Messages = append(p.Messages, anthropic.NewAssistantMessage(bs...))
		var rs []anthropic.ContentBlockParamUnion
		for _, r := range s.results {
			rs = append(rs, anthropic.NewToolResultBlock(r.id, r.text, r.isError))
		}
		p.Messages = append(p.Messages, anthropic.NewUserMessage(rs...))
	}
	for _, t := range tools {
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: t.name, Description: anthropic.String(t.description),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: t.schema["properties"], ExtraFields: extra(t.schema)}}})
	}
	var msg anthropic.Message
	if m.c.stream {
		st := m.cl.Messages.NewStreaming(ctx, p)
		for st.Next() {
			if err := msg.Accumulate(st.Current()); err != nil {
				return reply{}, err
			}
		}
		if err := st.Err(); err != nil {
			return reply{}, err
		}
	} else {
		r, err := m.cl.Messages.New(ctx, p)
		if err != nil {
			return reply{}, err
		}
		msg = *r
	}
	out := reply{input: msg.Usage.InputTokens, output: msg.Usage.OutputTokens}
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			out.text += b.Text
		case "tool_use":
			out.calls = append(out.calls, call{id: b.ID, name: b.Name, input: b.Input})
		}
	}
	return out, nil
}

// extra carries the schema's keys besides properties (required, ...).
func extra(schema map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range schema {
		if k != "properties" && k != "type" {
			out[k] = v
		}
	}
	return out
}

type chatModel struct {
	c  config
	cl *openai.Client
}

func (m *chatModel) send(ctx context.Context, system string, hist []step, tools []tool) (reply, error) {
	p := openai.ChatCompletionNewParams{Model: m.c.model, Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system)}}
	for _, s := range hist {
		if s.user != "" {
			p.Messages = append(p.Messages, openai.UserMessage(s.user))
			continue
		}
		a := openai.ChatCompletionAssistantMessageParam{}
		if s.text != "" {
			a.Content.OfString = openai.String(s.text)
		}
		for _, c := range s.calls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: c.id, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.name, Arguments: string(c.input)}}})
		}
		p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		for _, r := range s.results {
			p.Messages = append(p.Messages, openai.ToolMessage(r.text, r.id))
		}
	}
	for _, t := range tools {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: t.name, Description: openai.String(t.description), Parameters: t.schema}))
	}
	var cc openai.ChatCompletion
	if m.c.stream {
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		st := m.cl.Chat.Completions.NewStreaming(ctx, p)
		var acc openai.ChatCompletionAccumulator
		for st.Next() {
			acc.AddChunk(st.Current())
		}
		if err := st.Err(); err != nil {
			return reply{}, err
		}
		cc = acc.ChatCompletion
	} else {
		r, err := m.cl.Chat.Completions.New(ctx, p)
		if err != nil {
			return reply{}, err
		}
		cc = *r
	}
	out := reply{input: cc.Usage.PromptTokens, output: cc.Usage.CompletionTokens}
	if len(cc.Choices) == 0 {
		return out, fmt.Errorf("no choices in the reply")
	}
	msg := cc.Choices[0].Message
	out.text = msg.Content
	for _, tc := range msg.ToolCalls {
		out.calls = append(out.calls, call{id: tc.ID, name: tc.Function.Name, input: json.RawMessage(tc.Function.Arguments)})
	}
	return out, nil
}

type respModel struct {
	c  config
	cl *openai.Client
}

func (m *respModel) send(ctx context.Context, system string, hist []step, tools []tool) (reply, error) {
	var items responses.ResponseInputParam
	for _, s := range hist {
		if s.user != "" {
			items = append(items, responses.ResponseInputItemParamOfMessage(s.user, responses.EasyInputMessageRoleUser))
			continue
		}
		if s.text != "" {
			items = append(items, responses.ResponseInputItemParamOfMessage(s.text, responses.EasyInputMessageRoleAssistant))
		}
		for _, c := range s.calls {
			items = append(items, responses.ResponseInputItemParamOfFunctionCall(string(c.input), c.id, c.name))
		}
		for _, r := range s.results {
			it := responses.ResponseInputItemParamOfFunctionCallOutput(r.text)
			it.OfFunctionCallOutput.CallID = openai.String(r.id)
			items = append(items, it)
		}
	}
	p := responses.ResponseNewParams{Model: m.c.model, Instructions: openai.String(system), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: items}}
	for _, t := range tools {
		p.Tools = append(p.Tools, responses.ToolParamOfFunction(t.name, t.schema, false))
	}
	var r responses.Response
	if m.c.stream {
		st := m.cl.Responses.NewStreaming(ctx, p)
		got := false
		for st.Next() {
			ev := st.Current()
			switch ev.Type {
			case "response.completed", "response.incomplete":
				r, got = ev.Response, true
			case "response.failed":
				return reply{}, fmt.Errorf("response.failed: %s", ev.Response.Error.Message)
			}
		}
		if err := st.Err(); err != nil {
			return reply{}, err
		}
		if !got {
			return reply{}, fmt.Errorf("the stream ended without response.completed")
		}
	} else {
		rr, err := m.cl.Responses.New(ctx, p)
		if err != nil {
			return reply{}, err
		}
		r = *rr
	}
	out := reply{text: r.OutputText(), input: r.Usage.InputTokens, output: r.Usage.OutputTokens}
	for _, o := range r.Output {
		if o.Type == "function_call" {
			fc := o.AsFunctionCall()
			out.calls = append(out.calls, call{id: fc.CallID, name: fc.Name, input: json.RawMessage(fc.Arguments)})
		}
	}
	return out, nil
}

type gemModel struct {
	c  config
	cl *genai.Client
}

func (m *gemModel) send(ctx context.Context, system string, hist []step, tools []tool) (reply, error) {
	var contents []*genai.Content
	for _, s := range hist {
		if s.user != "" {
			contents = append(contents, genai.NewContentFromText(s.user, genai.RoleUser))
			continue
		}
		var ps []*genai.Part
		if s.text != "" {
			ps = append(ps, genai.NewPartFromText(s.text))
		}
		for _, c := range s.calls {
			var args map[string]any
			_ = json.Unmarshal(c.input, &args)
			p := genai.NewPartFromFunctionCall(c.name, args)
			p.FunctionCall.ID = c.id
			ps = append(ps, p)
		}
		contents = append(contents, genai.NewContentFromParts(ps, genai.RoleModel))
		var rs []*genai.Part
		for _, r := range s.results {
			key := "output"
			if r.isError {
				key = "error"
			}
			p := genai.NewPartFromFunctionResponse(r.name, map[string]any{key: r.text})
			p.FunctionResponse.ID = r.id
			rs = append(rs, p)
		}
		contents = append(contents, genai.NewContentFromParts(rs, genai.RoleUser))
	}
	cfg := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(system, genai.RoleUser)}
	if len(tools) > 0 {
		var fd []*genai.FunctionDeclaration
		for _, t := range tools {
			fd = append(fd, &genai.FunctionDeclaration{Name: t.name, Description: t.description, ParametersJsonSchema: t.schema})
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: fd}}
	}
	var out reply
	add := func(r *genai.GenerateContentResponse) {
		if r.UsageMetadata != nil {
			out.input += int64(r.UsageMetadata.PromptTokenCount)
			out.output += int64(r.UsageMetadata.CandidatesTokenCount)
		}
		if len(r.Candidates) == 0 || r.Candidates[0].Content == nil {
			return
		}
		for _, p := range r.Candidates[0].Content.Parts {
			if p.FunctionCall != nil {
				in, _ := json.Marshal(p.FunctionCall.Args)
				out.calls = append(out.calls, call{id: p.FunctionCall.ID, name: p.FunctionCall.Name, input: in})
			} else {
				out.text += p.Text
			}
		}
	}
	if m.c.stream {
		for r, err := range m.cl.Models.GenerateContentStream(ctx, m.c.model, contents, cfg) {
			if err != nil {
				return reply{}, err
			}
			add(r)
		}
	} else {
		r, err := m.cl.Models.GenerateContent(ctx, m.c.model, contents, cfg)
		if err != nil {
			return reply{}, err
		}
		add(r)
	}
	return out, nil
}
