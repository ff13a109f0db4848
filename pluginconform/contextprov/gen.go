package contextprov

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	"github.com/agentconform/conform/pluginconform/callback"
)

// The model conform assembles for: its id is what a provider passes to
// CountTokens as the model reference.
var target = &modelv1.ModelTarget{Id: "conform-model", ContextWindow: 200000, EffectiveCeiling: 150000}

var (
	words  = []string{"alpha", "build", "cache", "deploy", "errors", "files", "graph", "hooks", "index", "journal"}
	files  = []string{"src/auth/validator.py", "docs/README.md", "cmd/main.go", "internal/store/db.go"}
	priors = []string{"conform-prior-a", "conform-prior-b", "conform-prior-c"}
)

// drawn is one generated Contribute request and what it was drawn as.
type drawn struct {
	req      *contextv1.ContextRequest
	pressure bool // token_budget below the declared default
	note     string
}

// draw generates a well-formed request for session n: a budget at, below,
// far below or above the declared default; up to three sections of other
// providers already in the chain; files touched; and, for a compactor
// only, a conversation history.
func (r *run) draw(t *rapid.T, n int) drawn {
	def := r.caps.GetDefaultTokenBudget()
	if def <= 0 {
		def = 1000
	}
	var budget int64
	switch rapid.IntRange(0, 3).Draw(t, "budget kind") {
	case 0:
		budget = def
	case 1:
		budget = rapid.Int64Range(1, def).Draw(t, "budget below the default")
	case 2:
		budget = rapid.Int64Range(1, 8).Draw(t, "a tiny budget")
	default:
		budget = rapid.Int64Range(def, 4*def).Draw(t, "budget above the default")
	}
	var prior []*contentv1.ContextSection
	var assembled int64
	for i := range rapid.IntRange(0, len(priors)).Draw(t, "prior sections") {
		text := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 12).Draw(t, "prior words"), " ")
		st := rapid.SampledFrom([]contentv1.Stability{contentv1.Stability_STABILITY_STATIC, contentv1.Stability_STABILITY_DYNAMIC}).Draw(t, "prior stability")
		tok := callback.ExactCount(text)
		assembled += tok
		prior = append(prior, &contentv1.ContextSection{
			Provider: priors[i], Label: fmt.Sprintf("Prior section %d", i+1), Tokens: tok, Stability: st,
			Content: []*contentv1.ContentBlock{textBlock(text)},
		})
	}
	touched := rapid.SliceOfNDistinct(rapid.SampledFrom(files), 0, 2, rapid.ID[string]).Draw(t, "files touched")
	req := &contextv1.ContextRequest{
		SessionId: fmt.Sprintf("conform-session-%d", n), TurnId: turnID(n, 1), TokenBudget: budget,
		ModelTarget: target, FilesTouched: touched, WorkingDirectory: r.scratch, PriorSections: prior,
		AssembledTokensLastTurn: assembled,
	}
	if r.caps.GetCompactor() {
		for i := range rapid.IntRange(0, 3).Draw(t, "history messages") {
			role := contentv1.Role_ROLE_USER
			if i%2 == 1 {
				role = contentv1.Role_ROLE_ASSISTANT
			}
			text := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 20).Draw(t, "history words"), " ")
			req.ConversationHistory = append(req.ConversationHistory, &contentv1.Message{Role: role, Content: []*contentv1.ContentBlock{textBlock(text)}, Id: turnID(n, 100+i)})
			req.HistoryTokens += callback.ExactCount(text)
		}
	}
	note := fmt.Sprintf("token_budget %d (default %d), %d prior %s, files_touched %v, %d history messages",
		budget, def, len(prior), plural(len(prior), "section", "sections"), touched, len(req.ConversationHistory))
	return drawn{req: req, pressure: budget < def, note: note}
}

// budget is the declared default, or 1000 when the plugin declares none
// (CP-03 judges that): a request must still carry a budget.
func (r *run) budget() int64 {
	if b := r.caps.GetDefaultTokenBudget(); b > 0 {
		return b
	}
	return 1000
}

func textBlock(s string) *contentv1.ContentBlock {
	return &contentv1.ContentBlock{Block: &contentv1.ContentBlock_Text{Text: &contentv1.TextBlock{Text: s}}}
}

// turnID is a ULID-shaped id (26 Crockford base-32 characters) that
// differs per session and turn.
func turnID(session, turn int) string {
	const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	v := uint64(session)*1_000_003 + uint64(turn)
	b := []byte("01J0000000000000000000000")
	b = append(b, '0')
	for i := len(b) - 1; i >= 10 && v > 0; i-- {
		b[i] = digits[v%32]
		v /= 32
	}
	return string(b)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// texts are a section's text blocks.
func texts(s *contentv1.ContextSection) []string {
	var out []string
	for _, b := range s.GetContent() {
		if t := b.GetText(); t != nil {
			out = append(out, t.GetText())
		}
	}
	return out
}
