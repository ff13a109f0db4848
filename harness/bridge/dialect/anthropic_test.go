package dialect

import (
	"context"
	"errors"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"

	"github.com/agentconform/conform/spec/wire"
)

func antClient(url string) *anthropic.Client {
	c := anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey("dummy"), option.WithMaxRetries(0))
	return &c
}

func antParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model: "claude-conform", MaxTokens: 1000,
		System: []anthropic.TextBlockParam{{Text: "be brief"}},
		Messages: []anthropic.MessageParam{
			anthropic.NewUserMessage(anthropic.NewTextBlock("read a")),
			anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("call_0", map[string]any{"path": "z"}, "read")),
			anthropic.NewUserMessage(anthropic.NewToolResultBlock("call_0", "contents of z", false)),
		},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "read", Description: anthropic.String("reads"), InputSchema: anthropic.ToolInputSchemaParam{Properties: readSchema["properties"], Required: []string{"path"}}}}},
	}
}

func checkAntMessage(t *testing.T, m anthropic.Message) {
	t.Helper()
	if len(m.Content) != 2 || m.Content[0].Text != "reading" || m.Content[1].Type != "tool_use" || m.Content[1].Name != "read" || m.Content[1].ID != "call_1" || string(m.Content[1].Input) != `{"path":"a"}` {
		t.Fatalf("content = %+v", m.Content)
	}
	if m.StopReason != anthropic.StopReasonToolUse {
		t.Fatalf("stop_reason = %q", m.StopReason)
	}
	u := m.Usage
	if u.InputTokens != 100 || u.OutputTokens != 20 || u.CacheReadInputTokens != 30 || u.CacheCreationInputTokens != 5 {
		t.Fatalf("usage = %+v", u)
	}
}

func checkAntRequest(t *testing.T, p wire.ModelStreamParams) {
	t.Helper()
	want := []wire.Message{
		{Role: "system", Content: []wire.ContentBlock{{Type: "text", Text: "be brief"}}},
		{Role: "user", Content: []wire.ContentBlock{{Type: "text", Text: "read a"}}},
		{Role: "assistant", Content: []wire.ContentBlock{{Type: "tool_use", ID: "call_0", Name: "read", Input: []byte(`{"path":"z"}`)}}},
		{Role: "user", Content: []wire.ContentBlock{{Type: "tool_result", ToolUseID: "call_0", Content: "contents of z"}}},
	}
	if d := cmp.Diff(want, p.Messages); d != "" {
		t.Fatalf("messages (-want +got):\n%s", d)
	}
	if p.Model != "claude-conform" || len(p.Tools) != 1 || p.Tools[0].Name != "read" || p.Purpose != "turn" || p.Attempt != 1 {
		t.Fatalf("params = %+v", p)
	}
}

func TestAnthropicNonStreaming(t *testing.T) {
	sc, srv := serve(t, Anthropic, toolTurn())
	m, err := antClient(srv.URL).Messages.New(context.Background(), antParams())
	if err != nil {
		t.Fatal(err)
	}
	checkAntMessage(t, *m)
	checkAntRequest(t, sc.got[0])
}

func TestAnthropicStreaming(t *testing.T) {
	sc, srv := serve(t, Anthropic, toolTurn())
	st := antClient(srv.URL).Messages.NewStreaming(context.Background(), antParams())
	var m anthropic.Message
	for st.Next() {
		if err := m.Accumulate(st.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	checkAntMessage(t, m)
	checkAntRequest(t, sc.got[0])
}

func TestAnthropicErrors(t *testing.T) {
	for _, tc := range []struct {
		cat    string
		status int
		typ    string
	}{
		{wire.ModelErrRateLimited, 429, "rate_limit_error"},
		{wire.ModelErrOverloaded, 529, "overloaded_error"},
		{wire.ModelErrContextLength, 400, "invalid_request_error"},
		{wire.ModelErrContentFiltered, 400, "invalid_request_error"},
		{wire.ModelErrAuth, 401, "authentication_error"},
		{wire.ModelErrUnknown, 500, "api_error"},
	} {
		t.Run(tc.cat, func(t *testing.T) {
			_, srv := serve(t, Anthropic, failing(tc.cat, 1500))
			_, err := antClient(srv.URL).Messages.New(context.Background(), antParams())
			var ae *anthropic.Error
			if !errors.As(err, &ae) || ae.StatusCode != tc.status {
				t.Fatalf("err = %v", err)
			}
			if got := ae.RawJSON(); !contains(got, tc.typ) {
				t.Fatalf("body %s lacks %s", got, tc.typ)
			}
			if tc.cat == wire.ModelErrRateLimited && ae.Response.Header.Get("retry-after") != "2" {
				t.Fatalf("retry-after = %q", ae.Response.Header.Get("retry-after"))
			}
		})
	}
}

func TestAnthropicMidStreamError(t *testing.T) {
	_, srv := serve(t, Anthropic, halfway())
	st := antClient(srv.URL).Messages.NewStreaming(context.Background(), antParams())
	n := 0
	for st.Next() {
		n++
	}
	if st.Err() == nil || n == 0 {
		t.Fatalf("want events then an error, got %d events, err %v", n, st.Err())
	}
}

func TestAnthropicRefusesWhatItDoesNotAllow(t *testing.T) {
	var seen []string
	h, _ := New(Anthropic, (&script{}).stream, Options{Observe: func(f string, a ...any) { seen = append(seen, f) }})
	for _, body := range []string{`{"model":"m","messages":[]}`, `{"model":"m","messages":[{"role":"tool","content":"x"}]}`, `not json`} {
		rec := post(h, "/v1/messages", body)
		if rec.Code != 400 || !contains(rec.Body.String(), "invalid_request_error") {
			t.Fatalf("%s: %d %s", body, rec.Code, rec.Body.String())
		}
	}
	if len(seen) != 3 {
		t.Fatalf("observed %d refusals", len(seen))
	}
}
