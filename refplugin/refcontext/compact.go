package refcontext

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	"github.com/agentconform/conform/refplugin/refkit"
)

// compact is the compactor's Contribute: other providers' sections are
// summarized (their first words and a count), its own are fitted to what
// is left, and summaries are dropped oldest first until the whole chain
// fits token_budget; a conversation history is folded into one summary
// message.
func (p *Provider) compact(ctx context.Context, req *contextv1.ContextRequest, parts []struct{ label, text string }) (*contextv1.ContextContribution, error) {
	model := req.GetModelTarget().GetId()
	budget := req.GetTokenBudget()
	var chain []*contentv1.ContextSection
	var used int64
	for _, s := range req.GetPriorSections() {
		if p.f.CompactorOverBudget {
			chain = append(chain, proto.Clone(s).(*contentv1.ContextSection))
			continue
		}
		sum := summarize(s)
		n, err := p.kernel.Count(ctx, model, sum)
		if err != nil {
			return nil, p.fail(codes.Internal, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN, "CountTokens failed: "+err.Error())
		}
		chain = append(chain, &contentv1.ContextSection{Provider: s.GetProvider(), Label: s.GetLabel(), Content: []*contentv1.ContentBlock{refkit.Text(sum)}, Tokens: n, Stability: s.GetStability(), Truncated: true})
		used += n
	}
	// Own sections get what the summaries leave, and at least half.
	left := max(budget-used, budget/2)
	own := make([]*contentv1.ContextSection, len(parts))
	for i := len(parts) - 1; i >= 0; i-- { // the small files section first, as in Contribute
		sec, err := p.section(ctx, model, parts[i].label, parts[i].text, left)
		if err != nil {
			return nil, err
		}
		if sec != nil {
			left -= sec.GetTokens()
			used += sec.GetTokens()
		}
		own[i] = sec
	}
	for _, sec := range own {
		if sec != nil {
			chain = append(chain, sec)
		}
	}
	for used > budget && len(chain) > 0 && chain[0].GetProvider() != Name && !p.f.CompactorOverBudget {
		used -= chain[0].GetTokens()
		chain = chain[1:]
	}
	out := &contextv1.ContextContribution{Sections: chain}
	if h := req.GetConversationHistory(); len(h) > 1 {
		var words []string
		for _, m := range h {
			for _, b := range m.GetContent() {
				words = append(words, strings.Fields(b.GetText().GetText())...)
			}
		}
		out.RewrittenHistory = []*contentv1.Message{{Role: contentv1.Role_ROLE_USER, Content: []*contentv1.ContentBlock{refkit.Text(fmt.Sprintf("Summary of %d earlier messages: %s", len(h), strings.Join(words[:min(len(words), 8)], " ")))}}}
	}
	return out, nil
}

// summarize keeps a section's first words and says how much was left out.
func summarize(s *contentv1.ContextSection) string {
	var words []string
	for _, b := range s.GetContent() {
		words = append(words, strings.Fields(b.GetText().GetText())...)
	}
	if len(words) <= 3 {
		return strings.Join(words, " ")
	}
	return fmt.Sprintf("%s … (%d more words)", strings.Join(words[:3], " "), len(words)-3)
}
