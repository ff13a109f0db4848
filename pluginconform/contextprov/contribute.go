package contextprov

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/provkit"
)

// chainRules are the requirements a generated Contribute judges.
var chainRules = []string{"CP-09", "CP-10", "CP-11", "CP-12", "CP-13", "CP-14", "CP-15", "CP-16", "CP-17", "CP-18", "CP-19", "CP-20", "CP-21", "CP-32"}

// checkContribute runs Contribute on generated requests.
func (r *run) checkContribute(ctx context.Context) {
	s := r.c.Scenario("context/contribute", "Contribute on generated requests", chainRules...)
	defer r.c.Add(s)
	start := time.Now()
	n := 0
	res := kit.Property(r.opt.Cases, func(t *rapid.T) (kit.Verdicts, any, string, string) {
		n++
		d := r.draw(t, n)
		v, stop := r.contributeCase(ctx, d)
		return v, d.note, "", stop
	})
	r.stats.GeneratedCalls += res.Calls
	r.stats.GeneratedTime += time.Since(start)
	compactor := r.caps.GetCompactor()
	unreached := map[string]string{
		"CP-09": "no generated request carried prior sections the plugin answered",
		"CP-15": "no request with a budget below the declared default was answered",
		"CP-18": "the plugin declares stability dynamic",
		"CP-19": "conform did not choose the source the plugin reads (the configuration names it, or no source attribute was found)",
		"CP-32": "no section the plugin added under a budget below its default was a strict prefix of the one it added under that label with a far larger budget",
	}
	if r.caps.GetStability() != contentv1.Stability_STABILITY_STATIC {
		unreached["CP-32"] = "the plugin declares stability dynamic, so its sections of two calls cannot be compared"
	}
	if compactor {
		for _, id := range []string{"CP-09", "CP-10", "CP-14", "CP-20"} {
			unreached[id] = "the plugin declares compactor, which lifts this rule"
		}
	} else {
		unreached["CP-21"] = "the plugin declares compactor false"
	}
	res.Record(r.c, s, "generated Contribute requests", chainRules, unreached)
	if res.Stopped != "" {
		s.Errorf("%s", res.Stopped)
	}
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
	}
	r.checkCompactor(s, res.Calls-len(res.Failed) > 0)
	r.recheckCapabilities(ctx, "after the Contribute calls")
}

// contribute calls Contribute once.
func (r *run) contribute(ctx context.Context, req *contextv1.ContextRequest) (*contextv1.ContextContribution, error) {
	c, cancel := r.host.Call(ctx)
	defer cancel()
	resp, err := r.client().Contribute(c, req)
	r.secrets.SeeMsg("a Contribute answer", resp)
	r.seen("Contribute", err)
	return resp, err
}

// contributeCase runs one generated request, twice for a static provider
// (a second turn of the same session), and judges the answers.
func (r *run) contributeCase(ctx context.Context, d drawn) (kit.Verdicts, string) {
	if reason := r.relaunch(ctx); reason != "" {
		return nil, reason
	}
	v := kit.Verdicts{}
	resp, err := r.contribute(ctx, d.req)
	if b := r.host.Broken("Contribute", err); b != "" {
		return nil, b
	}
	if err != nil {
		if d.pressure || isCategory(err, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_BUDGET_EXCEEDED) {
			v["CP-15"] = fmt.Sprintf("Contribute with token_budget %d failed (%s) instead of reducing its own content to fit", d.req.GetTokenBudget(), provkit.StatusText(err))
			return v, ""
		}
		return nil, "Contribute failed on a well-formed request (" + provkit.StatusText(err) + "); the chain rules cannot be judged"
	}
	if d.pressure {
		v["CP-15"] = ""
	}
	r.judgeChain(d.req, resp, v)
	if r.caps.GetStability() == contentv1.Stability_STABILITY_STATIC {
		again := proto.Clone(d.req).(*contextv1.ContextRequest)
		again.TurnId = turnID(int(d.req.GetTokenBudget()%1000)+5000, 2)
		resp2, err := r.contribute(ctx, again)
		if b := r.host.Broken("Contribute", err); b != "" {
			return nil, b
		}
		if err == nil {
			a, b := r.own(d.req, resp), r.own(again, resp2)
			v["CP-18"] = ""
			if !sameSections(a, b) {
				v["CP-18"] = fmt.Sprintf("the plugin declares stability static, but a second firing of the same session with the same files_touched contributed different sections (%s, then %s)", sectionNames(a), sectionNames(b))
			}
		}
		if d.pressure {
			if b := r.judgeTruncated(ctx, d.req, resp, v); b != "" {
				return nil, b
			}
		}
	}
	return v, ""
}

// judgeTruncated asks a static provider's firing again with a far larger
// budget: a section it added under the small budget whose text is a
// strict prefix of the one it adds under the same label there was cut
// down to fit, and must say truncated (CP-32). A section that differs
// otherwise (summarized, selected) is no verdict. It returns why the
// plugin gave no answer at all, or "".
func (r *run) judgeTruncated(ctx context.Context, req *contextv1.ContextRequest, resp *contextv1.ContextContribution, v kit.Verdicts) string {
	wide := proto.Clone(req).(*contextv1.ContextRequest)
	wide.TurnId, wide.TokenBudget = turnID(int(req.GetTokenBudget()%1000)+5000, 3), 16*r.budget()
	full, err := r.contribute(ctx, wide)
	if b := r.host.Broken("Contribute", err); b != "" {
		return b
	}
	if err != nil {
		return "" // CP-15 judges a refusal under pressure; a wider budget refused says nothing here
	}
	whole := map[string]string{}
	for _, s := range r.own(wide, full) {
		whole[s.GetLabel()] = strings.Join(texts(s), "")
	}
	for _, s := range r.own(req, resp) {
		cut := strings.Join(texts(s), "")
		w, ok := whole[s.GetLabel()]
		if !ok || cut == w || !strings.HasPrefix(w, cut) {
			continue
		}
		v.SetOnce("CP-32", cond(!s.GetTruncated(), fmt.Sprintf("section %q holds the first %d of the %d bytes it holds under token_budget %d: it was cut down to fit token_budget %d, but says truncated false", s.GetLabel(), len(cut), len(w), wide.GetTokenBudget(), req.GetTokenBudget())))
	}
	return ""
}

// own are the sections of resp that belong to no provider of the prior
// chain: the ones the plugin added.
func (r *run) own(req *contextv1.ContextRequest, resp *contextv1.ContextContribution) []*contentv1.ContextSection {
	prior := map[string]bool{}
	for _, p := range req.GetPriorSections() {
		prior[p.GetProvider()] = true
	}
	var out []*contentv1.ContextSection
	for _, s := range resp.GetSections() {
		if !prior[s.GetProvider()] {
			out = append(out, s)
		}
	}
	return out
}

// judgeChain applies the chain, section and budget rules to one answer.
func (r *run) judgeChain(req *contextv1.ContextRequest, resp *contextv1.ContextContribution, v kit.Verdicts) {
	compactor := r.caps.GetCompactor()
	prior := map[string]bool{}
	for _, p := range req.GetPriorSections() {
		prior[p.GetProvider()] = true
	}
	var kept []*contentv1.ContextSection
	firstOwn, lastKept := -1, -1
	for i, s := range resp.GetSections() {
		if prior[s.GetProvider()] {
			kept = append(kept, s)
			lastKept = i
		} else if firstOwn < 0 {
			firstOwn = i
		}
	}
	own := r.own(req, resp)
	if !compactor && len(req.GetPriorSections()) > 0 {
		switch {
		case len(kept) == 0:
			v["CP-09"] = fmt.Sprintf("given %d prior %s, the plugin answered only its own %d: a delta, not the whole chain", len(req.GetPriorSections()), plural(len(req.GetPriorSections()), "section", "sections"), len(own))
		case firstOwn >= 0 && firstOwn < lastKept:
			v["CP-09"] = "the plugin put its own section before the prior sections instead of appending it"
		default:
			v["CP-09"] = ""
		}
		if len(kept) > 0 {
			v["CP-10"] = priorDiff(req.GetPriorSections(), kept)
		}
	}
	var ownTokens, allTokens int64
	for _, s := range resp.GetSections() {
		allTokens += s.GetTokens()
	}
	for _, s := range own {
		ownTokens += s.GetTokens()
		name := s.GetProvider()
		switch {
		case strings.TrimSpace(name) == "":
			v.SetOnce("CP-11", "a section the plugin added has no provider name")
		case r.name == "":
			r.name = name
			v.SetOnce("CP-11", "")
		case name != r.name:
			v.SetOnce("CP-11", fmt.Sprintf("the plugin's sections name provider %q here and %q on an earlier firing", name, r.name))
		default:
			v.SetOnce("CP-11", "")
		}
		v.SetOnce("CP-12", cond(strings.TrimSpace(s.GetLabel()) == "", fmt.Sprintf("a section of provider %q has no label", name)))
		v.SetOnce("CP-13", nonText(s))
		v.SetOnce("CP-17", cond(s.GetStability() == contentv1.Stability_STABILITY_UNSPECIFIED, fmt.Sprintf("section %q carries stability unspecified", s.GetLabel())))
		model := req.GetModelTarget().GetId()
		switch {
		case r.cb.AnsweredFor(model, texts(s), s.GetTokens()):
			v.SetOnce("CP-16", "")
		case r.cb.Answered(texts(s), s.GetTokens()):
			v.SetOnce("CP-16", fmt.Sprintf("section %q says tokens %d, a CountTokens answer to a request that did not name the model_target %q (conform counts %d for it with that model): the provider did not pass its model into CountTokens", s.GetLabel(), s.GetTokens(), model, exact(s)))
		default:
			v.SetOnce("CP-16", fmt.Sprintf("section %q says tokens %d, which no CountTokens answer gave for its content (conform would count %d for it with the model, %d without)", s.GetLabel(), s.GetTokens(), exact(s), fallback(s)))
		}
		if r.source != "" {
			joined := strings.Join(texts(s), "\n")
			switch {
			case strings.Contains(joined, commentMarker):
				v.SetOnce("CP-19", fmt.Sprintf("section %q carries the HTML comment of the source file", s.GetLabel()))
			case strings.Contains(joined, frontMarker):
				v.SetOnce("CP-19", fmt.Sprintf("section %q carries the front matter of the source file", s.GetLabel()))
			default:
				v.SetOnce("CP-19", "")
			}
		}
	}
	if compactor {
		v["CP-21"] = cond(allTokens > req.GetTokenBudget(), fmt.Sprintf("the compactor's whole chain holds %d tokens, over token_budget %d", allTokens, req.GetTokenBudget()))
		return
	}
	v["CP-14"] = cond(ownTokens > req.GetTokenBudget(), fmt.Sprintf("the plugin's sections hold %d tokens, over token_budget %d", ownTokens, req.GetTokenBudget()))
	v["CP-20"] = cond(len(resp.GetRewrittenHistory()) > 0, fmt.Sprintf("the plugin declares compactor false but returned rewritten_history (%d messages)", len(resp.GetRewrittenHistory())))
}

// priorDiff says how the kept sections differ from the prior chain.
func priorDiff(prior, kept []*contentv1.ContextSection) string {
	for i, p := range prior {
		if i >= len(kept) {
			return fmt.Sprintf("the section of provider %q was dropped", p.GetProvider())
		}
		if !proto.Equal(p, kept[i]) {
			if kept[i].GetProvider() != p.GetProvider() {
				return fmt.Sprintf("the sections of other providers were reordered or dropped: %q came where %q was", kept[i].GetProvider(), p.GetProvider())
			}
			return fmt.Sprintf("the section of provider %q (%q) was changed", p.GetProvider(), p.GetLabel())
		}
	}
	if len(kept) > len(prior) {
		return fmt.Sprintf("the answer holds %d sections under other providers' names, %d were given", len(kept), len(prior))
	}
	return ""
}

func nonText(s *contentv1.ContextSection) string {
	for _, b := range s.GetContent() {
		if b.GetText() == nil {
			return fmt.Sprintf("section %q holds a non-text content block (%T)", s.GetLabel(), b.GetBlock())
		}
	}
	return ""
}

func cond(bad bool, msg string) string {
	if bad {
		return msg
	}
	return ""
}

func sameSections(a, b []*contentv1.ContextSection) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !proto.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sectionNames(ss []*contentv1.ContextSection) string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%q (%d tokens)", s.GetLabel(), s.GetTokens()))
	}
	if len(out) == 0 {
		return "no section"
	}
	return strings.Join(out, ", ")
}
