package dialect

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/genai"

	"github.com/agentconform/conform/spec/wire"
)

func gemClient(t *testing.T, url string) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "dummy", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url, APIVersion: "v1beta"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func gemArgs() ([]*genai.Content, *genai.GenerateContentConfig) {
	call := genai.NewPartFromFunctionCall("read", map[string]any{"path": "z"})
	call.FunctionCall.ID = "call_0"
	resp := genai.NewPartFromFunctionResponse("read", map[string]any{"output": "contents of z"})
	resp.FunctionResponse.ID = "invented-by-the-agent"
	contents := []*genai.Content{
		genai.NewContentFromText("read a", genai.RoleUser),
		genai.NewContentFromParts([]*genai.Part{call}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{resp}, genai.RoleUser),
	}
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("be brief", genai.RoleUser),
		Tools:             []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "read", ParametersJsonSchema: readSchema}}}},
	}
	return contents, cfg
}

func checkGem(t *testing.T, r *genai.GenerateContentResponse) {
	t.Helper()
	if r.Text() != "reading" {
		t.Fatalf("text = %q", r.Text())
	}
	fc := r.FunctionCalls()
	if len(fc) != 1 || fc[0].Name != "read" || fc[0].ID != "call_1" || fc[0].Args["path"] != "a" {
		t.Fatalf("calls = %+v", fc)
	}
	if r.Candidates[0].FinishReason != genai.FinishReasonStop {
		t.Fatalf("finish = %q", r.Candidates[0].FinishReason)
	}
	u := r.UsageMetadata
	if u.PromptTokenCount != 135 || u.CandidatesTokenCount != 20 || u.CachedContentTokenCount != 30 || u.ThoughtsTokenCount != 7 {
		t.Fatalf("usage = %+v", u)
	}
}

func TestGeminiNonStreaming(t *testing.T) {
	sc, srv := serve(t, Gemini, toolTurn())
	contents, cfg := gemArgs()
	r, err := gemClient(t, srv.URL).Models.GenerateContent(context.Background(), "gemini-conform", contents, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkGem(t, r)
	checkHistory(t, sc.got[0], "gemini-conform")
}

func TestGeminiStreaming(t *testing.T) {
	sc, srv := serve(t, Gemini, toolTurn())
	contents, cfg := gemArgs()
	n := 0
	for r, err := range gemClient(t, srv.URL).Models.GenerateContentStream(context.Background(), "gemini-conform", contents, cfg) {
		if err != nil {
			t.Fatal(err)
		}
		checkGem(t, r)
		n++
	}
	if n != 1 {
		t.Fatalf("%d chunks", n)
	}
	checkHistory(t, sc.got[0], "gemini-conform")
}

func TestGeminiErrors(t *testing.T) {
	for _, tc := range []struct {
		cat, status string
		code        int
	}{
		{wire.ModelErrRateLimited, "RESOURCE_EXHAUSTED", 429},
		{wire.ModelErrOverloaded, "UNAVAILABLE", 503},
		{wire.ModelErrContextLength, "INVALID_ARGUMENT", 400},
		{wire.ModelErrAuth, "INVALID_ARGUMENT", 400},
		{wire.ModelErrUnknown, "INTERNAL", 500},
	} {
		t.Run(tc.cat, func(t *testing.T) {
			_, srv := serve(t, Gemini, failing(tc.cat, 1500))
			contents, cfg := gemArgs()
			_, err := gemClient(t, srv.URL).Models.GenerateContent(context.Background(), "gemini-conform", contents, cfg)
			var ae genai.APIError
			if !errors.As(err, &ae) || ae.Code != tc.code || ae.Status != tc.status {
				t.Fatalf("err = %#v", err)
			}
			if tc.cat == wire.ModelErrRateLimited && (len(ae.Details) != 1 || ae.Details[0]["retryDelay"] != "1.500s") {
				t.Fatalf("details = %v", ae.Details)
			}
		})
	}
}

func TestGeminiMidStreamError(t *testing.T) {
	_, srv := serve(t, Gemini, halfway())
	contents, cfg := gemArgs()
	var sawText, sawErr bool
	for r, err := range gemClient(t, srv.URL).Models.GenerateContentStream(context.Background(), "gemini-conform", contents, cfg) {
		if err != nil {
			sawErr = true
			break
		}
		sawText = sawText || r.Text() == "partial"
	}
	if !sawText || !sawErr {
		t.Fatalf("text %v error %v", sawText, sawErr)
	}
}

// Gemini CLI's routing call asks for JSON fitting a schema; an Intercept
// sees the schema and answers without the Streamer.
func TestGeminiRoutingCallIntercepted(t *testing.T) {
	sc := &script{}
	h, _ := New(Gemini, sc.stream, Options{Intercept: func(c Call) (wire.ModelStreamResult, bool) {
		if c.JSONSchema == nil {
			return wire.ModelStreamResult{}, false
		}
		return wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventTextDelta, Text: `{"model_choice":"flash"}`}, {Type: wire.EventStop, StopReason: "end_turn"}}}, true
	}})
	rec := post(h, "/v1beta/models/flash:generateContent", `{"contents":[{"role":"user","parts":[{"text":"route"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object"}}}`)
	if rec.Code != 200 || !contains(rec.Body.String(), "model_choice") || len(sc.got) != 0 {
		t.Fatalf("%d %s (streamer saw %d)", rec.Code, rec.Body.String(), len(sc.got))
	}
}
