package callback

import (
	"context"
	"testing"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	kernelv1 "github.com/agentconform/conform/api/gen/pluggableharness/kernel/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
)

func text(s string) *contentv1.ContentBlock {
	return &contentv1.ContentBlock{Block: &contentv1.ContentBlock_Text{Text: &contentv1.TextBlock{Text: s}}}
}

// CountTokens answers one token per character with a model, the fallback
// heuristic without; Answered finds a count given for the whole content
// or the sum of counts given block by block, and nothing else.
func TestCountTokens(t *testing.T) {
	s := New()
	ctx := context.Background()
	res, err := s.CountTokens(ctx, &kernelv1.CountTokensRequest{Content: []*contentv1.ContentBlock{text("héllo world")}, ModelRef: &modelv1.ModelRef{Id: "m"}})
	if err != nil || res.GetCount() != 11 || !res.GetExact() {
		t.Fatalf("with a model: %v %v", res, err)
	}
	res, err = s.CountTokens(ctx, &kernelv1.CountTokensRequest{Content: []*contentv1.ContentBlock{text("abcdefghi")}})
	if err != nil || res.GetCount() != 3 || res.GetExact() {
		t.Fatalf("without a model: %v %v", res, err)
	}
	if _, err := s.CountTokens(ctx, &kernelv1.CountTokensRequest{Content: []*contentv1.ContentBlock{{Block: &contentv1.ContentBlock_Image{Image: &contentv1.ImageBlock{}}}}}); err == nil {
		t.Error("a non-text block was counted")
	}
	for _, tc := range []struct {
		blocks []string
		tokens int64
		want   bool
	}{
		{[]string{"héllo world"}, 11, true},
		{[]string{"abcdefghi"}, 3, true},
		{[]string{"héllo world", "abcdefghi"}, 14, true}, // summed per block
		{[]string{"héllo world"}, 3, false},              // a heuristic's figure
		{[]string{"never counted"}, 13, false},
		{nil, 0, true},
	} {
		if got := s.Answered(tc.blocks, tc.tokens); got != tc.want {
			t.Errorf("Answered(%q, %d) = %v, want %v", tc.blocks, tc.tokens, got, tc.want)
		}
	}
}
