package callback

import (
	"context"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	kernelv1 "github.com/agentconform/conform/api/gen/pluggableharness/kernel/v1"
)

// Count is one CountTokens answer: the text of the request's blocks,
// the model it named ("" for none) and the count given.
type Count struct {
	Blocks []string
	Model  string
	Count  int64
	Exact  bool
}

// ExactCount is conform's own "tokenizer", answered when the request
// names a model: one token per character. It is deliberately unlike the
// fallback heuristic (a quarter of the bytes), so a provider that sizes
// its content with the heuristic instead of the callback is caught
// (CP-16, MM-26).
func ExactCount(text string) int64 { return int64(utf8.RuneCountInString(text)) }

// FallbackCount is the kernel's one documented fallback heuristic,
// ceil(utf8 bytes / 4), answered when the request names no model.
func FallbackCount(text string) int64 { return int64((len(text) + 3) / 4) }

// CountTokens answers and records the count of text content; a non-text
// block is refused (v1 counts text only).
func (s *Server) CountTokens(_ context.Context, req *kernelv1.CountTokensRequest) (*kernelv1.CountTokensResult, error) {
	var blocks []string
	for _, b := range req.GetContent() {
		if b.GetText() == nil {
			return nil, status.Error(codes.InvalidArgument, "CountTokens counts text blocks only (v1)")
		}
		blocks = append(blocks, b.GetText().GetText())
	}
	text := strings.Join(blocks, "")
	c := Count{Blocks: blocks, Count: FallbackCount(text)}
	if req.ModelRef != nil {
		c.Model, c.Count, c.Exact = req.GetModelRef().GetId(), ExactCount(text), true
	}
	s.mu.Lock()
	s.counts = append(s.counts, c)
	s.mu.Unlock()
	return &kernelv1.CountTokensResult{Count: c.Count, Exact: c.Exact}, nil
}

// Counts returns every CountTokens answer so far.
func (s *Server) Counts() []Count {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Count(nil), s.counts...)
}

// Answered reports whether tokens is a count conform answered for blocks:
// for all of them in one call, or the sum of calls that each counted one.
func (s *Server) Answered(blocks []string, tokens int64) bool {
	return s.AnsweredFor("", blocks, tokens)
}

// AnsweredFor is Answered counting only the answers to requests that named
// model, when model is not "". A provider handed a model target must pass
// it into CountTokens: the count then resolves to that model's tokenizer
// (context data-types, ContextSection.tokens; memory data-types,
// RecallRequest.model_target). A count asked without it is the fallback
// heuristic's, another figure for the same text.
func (s *Server) AnsweredFor(model string, blocks []string, tokens int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	whole := strings.Join(blocks, "")
	if whole == "" && tokens == 0 {
		return true
	}
	each := map[string][]int64{}
	for _, c := range s.counts {
		if model != "" && c.Model != model {
			continue
		}
		joined := strings.Join(c.Blocks, "")
		if joined == whole && c.Count == tokens {
			return true
		}
		each[joined] = append(each[joined], c.Count)
	}
	if len(blocks) < 2 {
		return false
	}
	// Summed per block: each block must have been counted, by either rule.
	sums := []int64{0}
	for _, b := range blocks {
		got := each[b]
		if len(got) == 0 {
			return false
		}
		var next []int64
		for _, s := range sums {
			for _, g := range got[:min(len(got), 2)] {
				next = append(next, s+g)
			}
		}
		if len(next) > 64 {
			next = next[:64]
		}
		sums = next
	}
	for _, v := range sums {
		if v == tokens {
			return true
		}
	}
	return false
}
