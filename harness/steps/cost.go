package steps

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// Cost area: cost_usd from the declared pricing (TA-06), reported at once
// (TA-23), the formula (TA-24), tier selection and price-list validation
// (TA-25), the weighted-token refinement (TA-05). The harness computes every
// expected figure itself from the config and the usage the fake model sent;
// the fake model never sends a dollar amount.

// costTolerance is the absolute tolerance of every dollar comparison.
const costTolerance = 1e-9

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the model's price is \$(\S+) per million input tokens and \$(\S+) per million output tokens$`), s.simplePrice)
		sc.Step(stepRE(`^the model's prices per million tokens are: input \$(\S+), output \$(\S+), cache read \$(\S+) and cache write \$(\S+)$`), s.cachePrices)
		sc.Step(stepRE(`^the model's price tiers are:$`), s.priceTiers)
		sc.Step(stepRE(`^the model is free$`), s.freeModel)
		sc.Step(stepRE(`^every model reply uses (\d+) input tokens? and (\d+) output tokens?$`), s.everyUsage)
		sc.Step(stepRE(`^model request (\d+) reports usage of (.+)$`), s.requestUsage)
		sc.Step(stepRE(`^the token weights are (\S+) per output token and (\S+) per input token, with a budget of (\S+) weighted tokens$`), s.tokenWeights)

		sc.Step(stepRE(`^every cost report matches the declared pricing$`), s.proves(s.costsMatchPricing, "TA-06", "TA-23", "TA-25"))
		sc.Step(stepRE(`^the reported costs add up to the session's total cost$`), s.proves(s.costsAddUp, "TA-06"))
		sc.Step(stepRE(`^the kernel reported a cost of \$(\S+) for model request (\d+)$`), s.proves(s.costOfRequest, "TA-06", "TA-24", "TA-25"))
		sc.Step(stepRE(`^the post-model-response payloads carried the cost of each reply$`), s.proves(s.postModelResponseCosts, "TA-06"))
		sc.Step(stepRE(`^the cost of each reply was reported before the next turn started$`), s.proves(s.costReportedBeforeNextTurn, "TA-23"))
		sc.Step(stepRE(`^the kernel refused the session config before the session started$`), s.proves(s.refusedBeforeStart, "TA-25"))
		sc.Step(stepRE(`^every cost report carries the weighted tokens of its usage$`), s.proves(s.weightedTokensReported, "TA-05"))
	})
}

func (s *Scenario) simplePrice(in, out string) error {
	i, err1 := strconv.ParseFloat(in, 64)
	o, err2 := strconv.ParseFloat(out, 64)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	s.Cfg.Model.Pricing = wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{{InputPerMtok: i, OutputPerMtok: o}}}
	return nil
}

func (s *Scenario) cachePrices(in, out, read, write string) error {
	var v [4]float64
	for i, x := range []string{in, out, read, write} {
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return err
		}
		v[i] = f
	}
	s.Cfg.Model.CachingSupported = true
	s.Cfg.Model.Pricing = wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{{
		InputPerMtok: v[0], OutputPerMtok: v[1], CacheReadPerMtok: &v[2], CacheWritePerMtok: &v[3],
	}}}
	return nil
}

// priceTiers reads a table with any of the columns "input tokens from",
// "input tokens until", "effective from", "effective until", "input",
// "output", "cache read", "cache write"; an empty cell leaves the field out.
func (s *Scenario) priceTiers(t *godog.Table) error {
	if len(t.Rows) < 1 {
		return errors.New("the price table has no header")
	}
	var head []string
	for _, c := range t.Rows[0].Cells {
		head = append(head, strings.TrimSpace(c.Value))
	}
	tiers := []wire.PricingTier{}
	for _, r := range t.Rows[1:] {
		var tier wire.PricingTier
		for i, c := range r.Cells {
			v := strings.TrimSpace(c.Value)
			if v == "" || i >= len(head) {
				continue
			}
			if err := setTierField(&tier, head[i], v); err != nil {
				return err
			}
			if head[i] == "cache read" || head[i] == "cache write" {
				s.Cfg.Model.CachingSupported = true
			}
		}
		tiers = append(tiers, tier)
	}
	s.Cfg.Model.Pricing = wire.Pricing{Currency: "USD", Tiers: tiers}
	return nil
}

func setTierField(t *wire.PricingTier, col, v string) error {
	num := func() (float64, error) { return strconv.ParseFloat(strings.TrimPrefix(v, "$"), 64) }
	count := func() (*int64, error) {
		n, err := strconv.ParseInt(strings.ReplaceAll(v, ",", ""), 10, 64)
		return &n, err
	}
	var err error
	switch col {
	case "input tokens from":
		t.InputTokensFrom, err = count()
	case "input tokens until":
		t.InputTokensUntil, err = count()
	case "effective from":
		t.EffectiveFrom = v
	case "effective until":
		t.EffectiveUntil = v
	case "input":
		t.InputPerMtok, err = num()
	case "output":
		t.OutputPerMtok, err = num()
	case "cache read":
		var f float64
		f, err = num()
		t.CacheReadPerMtok = &f
	case "cache write":
		var f float64
		f, err = num()
		t.CacheWritePerMtok = &f
	default:
		return fmt.Errorf("unknown price table column %q", col)
	}
	return err
}

func (s *Scenario) freeModel() error {
	s.Cfg.Model.Pricing = wire.Pricing{Currency: "USD", Free: true, Tiers: []wire.PricingTier{}}
	return nil
}

func (s *Scenario) everyUsage(in, out int64) error {
	s.World.Model.EveryUsage(wire.Usage{InputTokens: in, OutputTokens: out})
	return nil
}

var usagePart = regexp.MustCompile(`^(\d+) (input|output|cache read|cache write|reasoning)(?: tokens)?$`)

// requestUsage reads "1000000 input, 200000 output, 500000 cache read,
// 100000 cache write and 50000 reasoning tokens"; counters left out are
// absent from the usage event.
func (s *Scenario) requestUsage(nth, list string) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	u, err := parseUsage(list)
	if err != nil {
		return err
	}
	s.World.Model.SetUsage(n, u)
	return nil
}

func parseUsage(list string) (wire.Usage, error) {
	var u wire.Usage
	list = strings.TrimSuffix(strings.TrimSpace(list), " tokens")
	list = strings.ReplaceAll(list, " and ", ", ")
	for _, part := range strings.Split(list, ",") {
		m := usagePart.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			return u, fmt.Errorf("cannot read usage %q; write e.g. 1000 input, 200 output and 50 reasoning tokens", part)
		}
		v, _ := strconv.ParseInt(m[1], 10, 64)
		switch m[2] {
		case "input":
			u.InputTokens = v
		case "output":
			u.OutputTokens = v
		case "cache read":
			u.CacheReadTokens = &v
		case "cache write":
			u.CacheWriteTokens = &v
		case "reasoning":
			u.ReasoningTokens = &v
		}
	}
	return u, nil
}

func (s *Scenario) tokenWeights(sampling, prefill, budget string) error {
	var v [3]float64
	for i, x := range []string{sampling, prefill, budget} {
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return err
		}
		v[i] = f
	}
	s.Cfg.Bounds.Weights = &wire.TokenWeights{SamplingTokenWeight: v[0], PrefillTokenWeight: v[1], MaxWeightedTokens: v[2]}
	return nil
}

// ExpectedCost is the harness's own pricing of one usage event received at
// a time: the one tier whose half-open windows hold the time and the
// event's input_tokens, five counters at their rates, reasoning at the
// output rate, absent counters and rates zero (§3.2 of the digest). ok is
// false when no single tier matches.
func ExpectedCost(p wire.Pricing, u wire.Usage, at time.Time) (usd float64, tier int, ok bool) {
	if p.Free {
		return 0, 0, true
	}
	tier = -1
	for i, t := range p.Tiers {
		if tierMatches(t, u.InputTokens, at) {
			if tier >= 0 {
				return 0, 0, false
			}
			tier = i
		}
	}
	if tier < 0 {
		return 0, 0, false
	}
	return tierCost(p.Tiers[tier], u), tier, true
}

// tierCost is the formula of §3.2 at one tier: five counters at their
// rates, reasoning at the output rate, absent counters and rates zero.
func tierCost(t wire.PricingTier, u wire.Usage) float64 {
	per := func(n int64, rate float64) float64 { return float64(n) * rate / 1e6 }
	return per(u.InputTokens, t.InputPerMtok) + per(u.OutputTokens, t.OutputPerMtok) +
		per(opt(u.CacheReadTokens), optRate(t.CacheReadPerMtok)) +
		per(opt(u.CacheWriteTokens), optRate(t.CacheWritePerMtok)) +
		per(opt(u.ReasoningTokens), t.OutputPerMtok)
}

func tierMatches(t wire.PricingTier, n int64, at time.Time) bool {
	if t.InputTokensFrom != nil && n < *t.InputTokensFrom {
		return false
	}
	if t.InputTokensUntil != nil && n >= *t.InputTokensUntil {
		return false
	}
	if t.EffectiveFrom != "" {
		if from, err := time.Parse(time.RFC3339Nano, t.EffectiveFrom); err == nil && at.Before(from) {
			return false
		}
	}
	if t.EffectiveUntil != "" {
		if until, err := time.Parse(time.RFC3339Nano, t.EffectiveUntil); err == nil && !at.Before(until) {
			return false
		}
	}
	return true
}

func opt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func optRate(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// usd is dollars as failure texts write them (package plain).
func usd(v float64) string { return plain.USD(v) }

// sentUsage is every usage event the fake model sent to the root session,
// in order, with the model request it answered.
type sentUsage struct {
	usage   wire.Usage
	request calllog.Entry
	nth     int // 1-based number of the model request
}

func (s *Scenario) sentUsages() []sentUsage {
	var out []sentUsage
	for i, e := range s.modelEntries() {
		for _, u := range replyUsages(e) {
			out = append(out, sentUsage{usage: u, request: e, nth: i + 1})
		}
	}
	return out
}

func (s *Scenario) rootCosts() []wire.CostUsage {
	var out []wire.CostUsage
	for _, c := range s.World.Costs() {
		if c.SessionID == s.SessionID {
			out = append(out, c)
		}
	}
	return out
}

func sameUsage(a, b wire.Usage) bool {
	return a.InputTokens == b.InputTokens && a.OutputTokens == b.OutputTokens &&
		opt(a.CacheReadTokens) == opt(b.CacheReadTokens) && opt(a.CacheWriteTokens) == opt(b.CacheWriteTokens) &&
		opt(a.ReasoningTokens) == opt(b.ReasoningTokens)
}

func usageText(u wire.Usage) string {
	return fmt.Sprintf("input %d, output %d, cache read %d, cache write %d, reasoning %d",
		u.InputTokens, u.OutputTokens, opt(u.CacheReadTokens), opt(u.CacheWriteTokens), opt(u.ReasoningTokens))
}

// TA-06, TA-24, TA-25: one cost report per usage event, in order, each
// priced by the declared pricing. TA-23: the dollars stored with each event
// are those of the pricing in force when it arrived (its time tier).
func (s *Scenario) costsMatchPricing() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	sent, got := s.sentUsages(), s.rootCosts()
	if len(got) != len(sent) {
		return fmt.Errorf("the fake model sent %d usage events, the kernel reported %d costs (every usage event must be priced and reported)", len(sent), len(got))
	}
	for i, su := range sent {
		c := got[i]
		if !sameUsage(c.Usage, su.usage) {
			return fmt.Errorf("cost report %d carries usage {%s}, but usage event %d (model request %d) was {%s}", i+1, usageText(c.Usage), i+1, su.nth, usageText(su.usage))
		}
		want, _, ok := ExpectedCost(s.Cfg.Model.Pricing, su.usage, su.request.End)
		if !ok {
			return scenarioDefect("no single price tier matches usage event %d (input_tokens %d); the scenario's price list is broken", i+1, su.usage.InputTokens)
		}
		if math.Abs(c.CostUSD-want) > costTolerance {
			return fmt.Errorf("model request %d's usage {%s} costs $%s by the declared pricing, the kernel reported $%s", su.nth, usageText(su.usage), usd(want), usd(c.CostUSD))
		}
	}
	return nil
}

// TA-06: the session's total is the sum of the per-event costs, in the
// result and in the last running total.
func (s *Scenario) costsAddUp() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	sum := 0.0
	got := s.rootCosts()
	for _, c := range got {
		sum += c.CostUSD
	}
	if math.Abs(sum-s.Result.TotalCostUSD) > costTolerance {
		return fmt.Errorf("the %d cost reports add up to $%s, the session result says total_cost_usd $%s", len(got), usd(sum), usd(s.Result.TotalCostUSD))
	}
	if n := len(got); n > 0 && math.Abs(got[n-1].SessionTotalUSD-sum) > costTolerance {
		return fmt.Errorf("the last cost report's session_total_usd is $%s, the reports add up to $%s", usd(got[n-1].SessionTotalUSD), usd(sum))
	}
	return nil
}

// TA-24, TA-25: the cost reported for one request's usage.
func (s *Scenario) costOfRequest(amount, nth string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	want, err := strconv.ParseFloat(amount, 64)
	if err != nil {
		return err
	}
	n, _ := ordinal(nth)
	sent, got := s.sentUsages(), s.rootCosts()
	total, found := 0.0, false
	for i, su := range sent {
		if su.nth != n {
			continue
		}
		found = true
		if i >= len(got) {
			return fmt.Errorf("the kernel reported no cost for the usage of model request %d (only %d cost reports)", n, len(got))
		}
		total += got[i].CostUSD
	}
	if !found {
		if got := len(s.modelEntries()); n > got {
			return notReached("there is no model request %d: the kernel made %d", n, got)
		}
		return scenarioDefect("model request %d sent no usage event (the scenario scripts none)", n)
	}
	if math.Abs(total-want) > costTolerance {
		return fmt.Errorf("expected the usage of model request %d to cost $%s, the kernel reported $%s", n, amount, usd(total))
	}
	return nil
}

// TA-06: what an observer sees at post-model-response is the reply's cost.
func (s *Scenario) postModelResponseCosts() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	turns := s.turns()
	checked := 0
	for ti, turn := range turns {
		want, have := 0.0, false
		for _, e := range turn {
			if e.Method == wire.MethodModelStream {
				p, _ := e.Value.(wire.ModelStreamParams)
				if p.Purpose == wire.PurposeLoopCheck {
					continue
				}
				for _, u := range replyUsages(e) {
					c, _, _ := ExpectedCost(s.Cfg.Model.Pricing, u, e.End)
					want += c
					have = true
				}
			}
			p, ok := e.Value.(wire.HookDispatchParams)
			if !ok || p.Point != wire.PointPostModelResponse || !have {
				continue
			}
			checked++
			if p.Payload.CostUSD == nil {
				return fmt.Errorf("the post-model-response payload of turn %d (#%d) carries no cost_usd", ti, e.Seq)
			}
			if math.Abs(*p.Payload.CostUSD-want) > costTolerance {
				return fmt.Errorf("the post-model-response payload of turn %d (#%d) says cost_usd $%s, the reply costs $%s by the declared pricing", ti, e.Seq, usd(*p.Payload.CostUSD), usd(want))
			}
		}
	}
	if checked > 0 {
		return nil
	}
	// Nothing to compare. The payload's cost_usd is TA-06's clause only
	// where the kernel dispatches the point: a kernel that never does is
	// charged for the missing dispatch where the point itself is judged
	// (HD-09, ER-08, TA-01's step order), as for observe-only hooks, and
	// this clause is not reached (TA-06 passes partially at most).
	subscribed := slices.ContainsFunc(s.Cfg.Hooks.Subscribers, func(sub wire.Subscriber) bool {
		return sub.Point == wire.PointPostModelResponse
	})
	switch {
	case !subscribed:
		return scenarioDefect("the check reads post-model-response payloads, but the scenario subscribes nobody at post-model-response")
	case len(s.dispatchesAt(wire.PointPostModelResponse)) == 0:
		return notReached("the kernel never dispatched post-model-response, so no payload's cost_usd could be compared with the declared pricing (the missing dispatch is judged where the hook point is)")
	default:
		return notReached("no reply before a post-model-response dispatch carried a usage event")
	}
}

// TA-23: the report of each usage event is out before the next turn
// starts (the next context/assemble) and before the session ends.
func (s *Scenario) costReportedBeforeNextTurn() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	entries := s.World.Log.Entries()
	var reports []calllog.Entry
	for _, e := range entries {
		if e.Method == wire.NotifyCostUsage && e.SessionID == s.SessionID {
			reports = append(reports, e)
		}
	}
	sent := s.sentUsages()
	for i, su := range sent {
		// The deadline: the first context/assemble of the session after the
		// model request was answered.
		deadline, next := 0, ""
		for _, e := range entries {
			if e.SessionID == s.SessionID && e.Kind == calllog.Request && e.Method == wire.MethodContextAssemble && e.Seq > su.request.EndSeq {
				deadline, next = e.Seq, "the next turn's context/assemble"
				break
			}
		}
		if i >= len(reports) {
			return fmt.Errorf("the usage of model request %d was never reported", su.nth)
		}
		if deadline > 0 && reports[i].Seq > deadline {
			return fmt.Errorf("the cost of model request %d's usage was reported at #%d, after %s (#%d)", su.nth, reports[i].Seq, next, deadline)
		}
	}
	return nil
}

// TA-25: a price list that cannot price every event is refused before the
// session starts: no hook, no model request.
func (s *Scenario) refusedBeforeStart() error {
	if err := s.mustHaveStarted(); err != nil {
		return err
	}
	if s.Rejected == nil {
		return fmt.Errorf("expected the kernel to refuse the session config (error %d) before the session started; it accepted it and the session ended %q", wire.CodeConfigRejected, s.Result.Status)
	}
	if rs := s.requests(); len(rs) > 0 {
		return fmt.Errorf("the kernel refused the config, but only after sending %q (#%d): a refused config starts nothing", rs[0].Label, rs[0].Seq)
	}
	return nil
}

// TA-05: the weighted tokens of each event, when reported, follow the
// configured weights.
func (s *Scenario) weightedTokensReported() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	w := s.Cfg.Bounds.Weights
	if w == nil {
		return scenarioDefect("the scenario configures no token weights")
	}
	costs := s.rootCosts()
	omitted := 0
	for _, c := range costs {
		if c.WeightedTokens == nil {
			omitted++
		}
	}
	if len(costs) == 0 || omitted == len(costs) {
		// weighted_tokens is optional on the wire (§8.2).
		return notReached("the kernel's %d cost reports leave out the optional weighted_tokens", len(costs))
	}
	for i, c := range costs {
		if c.WeightedTokens == nil {
			return fmt.Errorf("cost report %d carries no weighted_tokens, while %d others do", i+1, len(costs)-omitted)
		}
		want := float64(c.Usage.OutputTokens)*w.SamplingTokenWeight + float64(c.Usage.InputTokens)*w.PrefillTokenWeight
		if math.Abs(*c.WeightedTokens-want) > 1e-6 {
			return fmt.Errorf("cost report %d says weighted_tokens %v, the weights give %v", i+1, *c.WeightedTokens, want)
		}
	}
	return nil
}
