package model

import (
	"context"
	"fmt"
	"slices"
	"strings"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	schemav1 "github.com/agentconform/conform/api/gen/pluggableharness/schema/v1"
	"github.com/agentconform/conform/pluginconform/kit"
)

// The requests conform sends are built from these pieces: a model
// provider fronting a real vendor sees ordinary, small conversations.

func userText(text string) *contentv1.Message {
	return &contentv1.Message{Role: contentv1.Role_ROLE_USER, Id: "msg-user", Content: []*contentv1.ContentBlock{textBlock(text)}}
}

func assistantText(text string) *contentv1.Message {
	return &contentv1.Message{Role: contentv1.Role_ROLE_ASSISTANT, Content: []*contentv1.ContentBlock{textBlock(text)}}
}

func textBlock(text string) *contentv1.ContentBlock {
	return &contentv1.ContentBlock{Block: &contentv1.ContentBlock_Text{Text: &contentv1.TextBlock{Text: text}}}
}

func request(m *modelv1.ModelSpec, msgs ...*contentv1.Message) *modelv1.StreamCompletionRequest {
	for i, msg := range msgs {
		msg.Id = fmt.Sprintf("msg-%d", i+1)
	}
	return &modelv1.StreamCompletionRequest{
		ModelId: m.GetId(), Messages: msgs,
		CallContext: &commonv1.CallContext{SessionId: "conform-session", TurnId: "conform-turn", WorkingDirectory: "."},
	}
}

// tools are the two tools conform offers: one with a required string, one
// with a required string and an optional number.
func tools() []*modelv1.ToolDeclaration {
	str := &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_STRING, Description: "what to look up"}
	return []*modelv1.ToolDeclaration{
		{Name: "lookup", Description: "Look a key up in the notes.", InputSchema: &schemav1.Schema{
			Type: schemav1.SchemaType_SCHEMA_TYPE_OBJECT, Properties: map[string]*schemav1.Schema{"key": str}, Required: []string{"key"}}},
		{Name: "search", Description: "Search the notes.", InputSchema: &schemav1.Schema{
			Type: schemav1.SchemaType_SCHEMA_TYPE_OBJECT, Properties: map[string]*schemav1.Schema{
				"query": str, "limit": {Type: schemav1.SchemaType_SCHEMA_TYPE_NUMBER, Description: "at most this many"}},
			Required: []string{"query"}}},
	}
}

func section(text string) *contentv1.ContextSection {
	return &contentv1.ContextSection{Provider: "conform", Label: "project notes", Content: []*contentv1.ContentBlock{textBlock(text)},
		Tokens: int64(len(strings.Fields(text))), Stability: contentv1.Stability_STABILITY_STATIC}
}

// png is a 1x1 transparent PNG.
var png = []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89,
	0, 0, 0, 0x0a, 'I', 'D', 'A', 'T', 0x78, 0x9c, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0d, 0x0a, 0x2d, 0xb4, 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82}

// pdf is a minimal one-page PDF.
var pdf = []byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")

// ask runs one request, judges the stream rules on it and records them in
// s under step; it returns the outcome and whether the plugin is still
// usable (a hang or a crash ends the scenario in error, and relaunches it).
func (r *run) ask(ctx context.Context, s *kit.Scenario, m *modelv1.ModelSpec, step string, req *modelv1.StreamCompletionRequest, cancelAfter int) (outcome, bool) {
	o := r.complete(ctx, req, cancelAfter)
	if why := r.broken(o); why != "" {
		s.Errorf("%s: %s", step, why)
		if reason := r.restart(ctx); reason != "" {
			s.Errorf("%s", reason)
		}
		return o, false
	}
	v := kit.Verdicts{}
	judgeStream(m, req, o, v)
	record(s, step, v)
	return o, true
}

// broken says why an outcome shows a plugin that hung or died, "" when
// neither.
func (r *run) broken(o outcome) string {
	if o.hung {
		r.stop() // a hung plugin is relaunched for the next check
		return fmt.Sprintf("the stream did not end within %v (it hung)", r.opt.CallTimeout)
	}
	if o.endErr != nil {
		if d := r.died(o.endErr); d != "" {
			return d
		}
	}
	return ""
}

// record turns verdicts into checks of s, in ID order.
func record(s *kit.Scenario, step string, v kit.Verdicts) {
	ids := make([]string, 0, len(v))
	for id := range v {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		s.Check(step+" ("+id+")", v[id], id)
	}
}

// failure describes how a stream failed, "" when it ended with a stop.
func failure(o outcome) string {
	if me := o.modelErr(); me != nil {
		return fmt.Sprintf("it failed with %s: %s", me.GetCategory(), kit.Clip(me.GetMessage(), 200))
	}
	if o.endErr != nil {
		return "it ended with gRPC status " + kit.Clip(o.endErr.Error(), 200)
	}
	if o.stop() == nil {
		return "it ended with no stop event"
	}
	return ""
}
