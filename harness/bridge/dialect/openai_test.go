package dialect

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentconform/conform/spec/wire"
)

func oaiClient(url string) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("dummy"), option.WithMaxRetries(0))
	return &c
}

func chatParams() openai.ChatCompletionNewParams {
	asst := openai.ChatCompletionAssistantMessageParam{ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
		ID: "call_0", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "read", Arguments: `{"path": "z"}`}}}}}
	return openai.ChatCompletionNewParams{
		Model: "gpt-conform",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("be brief"), openai.UserMessage("read a"),
			{OfAssistant: &asst}, openai.ToolMessage("contents of z", "call_0"),
		},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "read", Parameters: readSchema})},
	}
}

// wantHistory is what every dialect's version of the test history decodes
// to.
var wantHistory = []wire.Message{
	{Role: "system", Content: []wire.ContentBlock{{Type: "text", Text: "be brief"}}},
	{Role: "user", Content: []wire.ContentBlock{{Type: "text", Text: "read a"}}},
	{Role: "assistant", Content: []wire.ContentBlock{{Type: "tool_use", ID: "call_0", Name: "read", Input: []byte(`{"path":"z"}`)}}},
	{Role: "user", Content: []wire.ContentBlock{{Type: "tool_result", ToolUseID: "call_0", Content: "contents of z"}}},
}

func checkHistory(t *testing.T, p wire.ModelStreamParams, model string) {
	t.Helper()
	if d := cmp.Diff(wantHistory, p.Messages); d != "" {
		t.Fatalf("messages (-want +got):\n%s", d)
	}
	if p.Model != model || len(p.Tools) != 1 || p.Tools[0].Name != "read" || p.Tools[0].InputSchema == nil {
		t.Fatalf("params = %+v", p)
	}
}

func checkChat(t *testing.T, c openai.ChatCompletion) {
	t.Helper()
	if len(c.Choices) != 1 {
		t.Fatalf("choices = %+v", c.Choices)
	}
	m := c.Choices[0]
	if m.Message.Content != "reading" || len(m.Message.ToolCalls) != 1 || m.FinishReason != "tool_calls" {
		t.Fatalf("choice = %+v", m)
	}
	tc := m.Message.ToolCalls[0]
	if tc.ID != "call_1" || tc.Function.Name != "read" || tc.Function.Arguments != `{"path":"a"}` {
		t.Fatalf("tool call = %+v", tc)
	}
	u := c.Usage
	if u.PromptTokens != 135 || u.CompletionTokens != 27 || u.PromptTokensDetails.CachedTokens != 30 || u.CompletionTokensDetails.ReasoningTokens != 7 {
		t.Fatalf("usage = %+v", u)
	}
}

func TestChatNonStreaming(t *testing.T) {
	sc, srv := serve(t, OpenAIChat, toolTurn())
	c, err := oaiClient(srv.URL).Chat.Completions.New(context.Background(), chatParams())
	if err != nil {
		t.Fatal(err)
	}
	checkChat(t, *c)
	checkHistory(t, sc.got[0], "gpt-conform")
}

func TestChatStreaming(t *testing.T) {
	sc, srv := serve(t, OpenAIChat, toolTurn())
	p := chatParams()
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	st := oaiClient(srv.URL).Chat.Completions.NewStreaming(context.Background(), p)
	var acc openai.ChatCompletionAccumulator
	for st.Next() {
		acc.AddChunk(st.Current())
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	checkChat(t, acc.ChatCompletion)
	checkHistory(t, sc.got[0], "gpt-conform")
}

func TestOpenAIErrors(t *testing.T) {
	for _, d := range []string{OpenAIChat, OpenAIResponses} {
		for _, tc := range []struct {
			cat, code string
			status    int
		}{
			{wire.ModelErrRateLimited, "rate_limit_exceeded", 429},
			{wire.ModelErrOverloaded, "server_is_overloaded", 503},
			{wire.ModelErrContextLength, "context_length_exceeded", 400},
			{wire.ModelErrContentFiltered, "content_filter", 400},
			{wire.ModelErrAuth, "invalid_api_key", 401},
			{wire.ModelErrUnknown, "", 500},
		} {
			t.Run(d+"/"+tc.cat, func(t *testing.T) {
				_, srv := serve(t, d, failing(tc.cat, 1500))
				var err error
				if d == OpenAIChat {
					_, err = oaiClient(srv.URL).Chat.Completions.New(context.Background(), chatParams())
				} else {
					p := respParams()
					fixOutputCallID(&p)
					_, err = oaiClient(srv.URL).Responses.New(context.Background(), p)
				}
				var ae *openai.Error
				if !errors.As(err, &ae) || ae.StatusCode != tc.status || ae.Code != tc.code {
					t.Fatalf("err = %v", err)
				}
				if tc.cat == wire.ModelErrRateLimited && (ae.Response.Header.Get("retry-after") != "2" || ae.Response.Header.Get("retry-after-ms") != "1500") {
					t.Fatalf("retry headers = %v", ae.Response.Header)
				}
			})
		}
	}
}

func TestChatMidStreamError(t *testing.T) {
	_, srv := serve(t, OpenAIChat, halfway())
	st := oaiClient(srv.URL).Chat.Completions.NewStreaming(context.Background(), chatParams())
	n := 0
	for st.Next() {
		n++
	}
	if st.Err() == nil || n == 0 {
		t.Fatalf("want chunks then an error, got %d chunks, err %v", n, st.Err())
	}
}

func respParams() responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:        "gpt-conform",
		Instructions: openai.String("be brief"),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage("read a", responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfFunctionCall(`{"path":"z"}`, "call_0", "read"),
			responses.ResponseInputItemParamOfFunctionCallOutput("contents of z"),
		}},
		Tools: []responses.ToolUnionParam{responses.ToolParamOfFunction("read", readSchema, false)},
	}
}

// fixOutputCallID sets the function_call_output's call_id, which the SDK's
// constructor leaves for the caller.
func fixOutputCallID(p *responses.ResponseNewParams) {
	p.Input.OfInputItemList[2].OfFunctionCallOutput.CallID = openai.String("call_0")
}

func checkResponse(t *testing.T, r responses.Response) {
	t.Helper()
	if r.OutputText() != "reading" || r.Status != "completed" {
		t.Fatalf("text %q status %q", r.OutputText(), r.Status)
	}
	var call *responses.ResponseFunctionToolCall
	for _, o := range r.Output {
		if o.Type == "function_call" {
			fc := o.AsFunctionCall()
			call = &fc
		}
	}
	if call == nil || call.CallID != "call_1" || call.Name != "read" || call.Arguments != `{"path":"a"}` {
		t.Fatalf("call = %+v", call)
	}
	u := r.Usage
	if u.InputTokens != 135 || u.OutputTokens != 27 || u.InputTokensDetails.CachedTokens != 30 || u.OutputTokensDetails.ReasoningTokens != 7 {
		t.Fatalf("usage = %+v", u)
	}
}

func TestResponsesNonStreaming(t *testing.T) {
	sc, srv := serve(t, OpenAIResponses, toolTurn())
	p := respParams()
	fixOutputCallID(&p)
	r, err := oaiClient(srv.URL).Responses.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	checkResponse(t, *r)
	checkHistory(t, sc.got[0], "gpt-conform")
}

func TestResponsesStreaming(t *testing.T) {
	sc, srv := serve(t, OpenAIResponses, toolTurn())
	p := respParams()
	fixOutputCallID(&p)
	st := oaiClient(srv.URL).Responses.NewStreaming(context.Background(), p)
	var done *responses.Response
	deltas := ""
	for st.Next() {
		ev := st.Current()
		switch ev.Type {
		case "response.output_text.delta":
			deltas += ev.Delta
		case "response.completed":
			r := ev.Response
			done = &r
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if done == nil || deltas != "reading" {
		t.Fatalf("no response.completed (deltas %q)", deltas)
	}
	checkResponse(t, *done)
	checkHistory(t, sc.got[0], "gpt-conform")
}

func TestResponsesMidStreamError(t *testing.T) {
	_, srv := serve(t, OpenAIResponses, halfway())
	p := respParams()
	fixOutputCallID(&p)
	st := oaiClient(srv.URL).Responses.NewStreaming(context.Background(), p)
	failed := false
	for st.Next() {
		if st.Current().Type == "response.failed" {
			failed = true
		}
	}
	if !failed && st.Err() == nil {
		t.Fatal("want response.failed or a stream error")
	}
}

// Codex offers MCP tools in a namespace and expects a call of one to carry
// the namespace beside the tool's name.
func TestResponsesNamespaceTools(t *testing.T) {
	sc := &script{answers: []wire.ModelStreamResult{toolTurn()}}
	h, _ := New(OpenAIResponses, sc.stream, Options{
		ToWire:  func(n string) (string, bool) { return strings.CutPrefix(n, "mcp__conform__") },
		ToAgent: func(n string) string { return "mcp__conform__" + n },
	})
	rec := post(h, "/v1/responses", `{"model":"m","input":"go","tools":[{"type":"namespace","name":"mcp__conform","tools":[{"type":"function","name":"read","parameters":{"type":"object"}}]},{"type":"function","name":"shell"}]}`)
	if rec.Code != 200 || !contains(rec.Body.String(), `"namespace":"mcp__conform"`) || !contains(rec.Body.String(), `"name":"read"`) {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	if ts := sc.got[0].Tools; len(ts) != 1 || ts[0].Name != "read" {
		t.Fatalf("offered = %+v", ts)
	}
}
