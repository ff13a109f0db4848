package steps

// Denials and downgrades (PA-03, PA-09): what a denied call tells the
// model, and how a downgraded ask is told from a plain deny.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// The denied call never ran, and the model finds a result for it in its
// history: the denial, by the one rule every denial check shares (denied).
// What the denial says is PA-03's own check (denialWithReason).
func (p *planArea) denialResult(nth, tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	rs, err := p.resultsFor(nth, tool)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if err := p.s.denied(r.ToolUseID, tool, &r, nth); err != nil {
			return err
		}
	}
	return nil
}

// PA-03: a denied item never runs, and its tool_result carries a reason the
// harness can tie to the decision: the name of the policy rule that decided
// it, the decided_by its plan_item row records, "default" for the policy
// default, the veto subscriber that denied it, or, for an item the frontend
// denied, the human decider (user, human, frontend, operator). Any other
// text, even a non-empty one, tells the model nothing about why.
func (p *planArea) denialWithReason(nth, tool string) error {
	if err := p.denialResult(nth, tool); err != nil {
		return err
	}
	rs, _ := p.resultsFor(nth, tool)
	for _, r := range rs {
		ties := p.denialTies(tool, r.ToolUseID)
		ok := false
		for _, t := range ties {
			ok = ok || containsWord(r.Content, t)
		}
		if !ok {
			return fmt.Errorf("the denial of the call %s to %q in model request %s says %q, which names none of what decided it (%s): the model cannot tell why it was refused",
				r.ToolUseID, tool, nth, r.Content, strings.Join(quoteAll(ties), ", "))
		}
	}
	return nil
}

// humanDeciders are the words that name a person's decision in a denial.
var humanDeciders = []string{"user", "human", "frontend", "operator"}

// What a denial may say of an asked item that got no usable decision: its
// permission request failed, the answer left it out, or every answer was
// one the kernel had to refuse.
var (
	failedAsk      = []string{"failed", "failure", "error", "unavailable"}
	missingAnswer  = []string{"no decision", "missing", "omitted", "left out"}
	refusedAnswers = []string{"refused", "usable", "valid", "asked"}
)

// decidedIn reports whether a frontend/permission answer holds a decision
// for the item.
func decidedIn(raw json.RawMessage, id string) bool {
	var r wire.PermissionResult
	if json.Unmarshal(raw, &r) != nil {
		return false
	}
	return slices.ContainsFunc(r.Decisions, func(d wire.PlanDecision) bool { return d.PlanItemID == id })
}

// denialTies lists what a denial of one call may name to say who decided
// it.
func (p *planArea) denialTies(tool, callID string) []string {
	s := p.s
	var ties []string
	add := func(t string) {
		if len(strings.TrimSpace(t)) >= 2 && !slices.Contains(ties, t) {
			ties = append(ties, t)
		}
	}
	for _, r := range p.matchingRules(tool) {
		add(r)
	}
	for _, e := range s.eventEntries(s.SessionID, wire.EventPlanItem) {
		ev := e.Value.(wire.Event)
		if payloadString(ev, "tool_call_id") != callID {
			continue
		}
		by := payloadString(ev, "decided_by")
		add(by)
		if i := strings.LastIndexAny(by, ":/"); i >= 0 {
			add(by[i+1:])
		}
	}
	refused := map[string]bool{} // plan items whose decisions the kernel refused
	for _, e := range s.eventEntries(s.SessionID, wire.EventError) {
		refused[payloadString(e.Value.(wire.Event), "plan_item_id")] = true
	}
	for _, a := range s.permissionItems(s.SessionID) {
		if a.item.ToolCallID != callID {
			continue
		}
		words := slices.Clone(humanDeciders)
		switch {
		case a.entry.Err != "":
			words = append(words, failedAsk...)
		case a.entry.Answered() && !decidedIn(a.entry.Result, a.item.ID):
			words = append(words, missingAnswer...)
		}
		if refused[a.item.ID] {
			words = append(words, refusedAnswers...)
		}
		for _, w := range words {
			add(w)
		}
	}
	for _, sub := range s.Cfg.Hooks.Subscribers {
		if sub.Mode == wire.ModeVeto {
			add(sub.ID)
		}
	}
	return ties
}

// containsWord reports whether text holds word (any case) with no letter
// or digit right before or after it, so that a rule named "no" is not found
// in "not".
func containsWord(text, word string) bool {
	text, word = strings.ToLower(text), strings.ToLower(word)
	isWordByte := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z'
	}
	for from := 0; ; {
		i := strings.Index(text[from:], word)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(word)
		if (i == 0 || !isWordByte(text[i-1])) && (j == len(text) || !isWordByte(text[j])) {
			return true
		}
		from = i + 1
	}
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// PA-09: an ask turned into deny is marked as such, naming the rule and
// the call kind (an ask_downgrade event naming the call, or a denial text
// saying the ask was downgraded); a plain deny is not marked at all.
func (p *planArea) downgradeMarked(askTool, denyTool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	a, err := p.downgradeMarks(askTool)
	if err != nil {
		return err
	}
	d, err := p.downgradeMarks(denyTool)
	if err != nil {
		return err
	}
	rules, kind := p.matchingRules(askTool), s.kindOf(askTool)
	switch {
	case len(a) == 0:
		return fmt.Errorf("the denied %q call matched an ask rule, but the kernel reported no downgrade for it (no ask_downgrade event naming the call, no denial text saying the ask was downgraded), so it looks like an ordinary deny", askTool)
	case len(d) > 0:
		return fmt.Errorf("the %q call matched a deny rule, but the kernel reported it as a downgraded ask: %s", denyTool, d[0])
	}
	if err := p.downgradeRuleRight(askTool, rules); err != nil {
		return err
	}
	for _, m := range a {
		if namesAny(m, rules) && namesKind(m, kind) {
			return nil
		}
	}
	return fmt.Errorf("the kernel marked the %q call as a downgraded ask, but no marker names both the rule (%s) and the call kind (%s), so the downgrade cannot be told apart in a log: %s",
		askTool, strings.Join(quoteAll(rules), " or "), kind, strings.Join(a, "; "))
}

// downgradeRuleRight: an ask_downgrade event about the call that names a
// rule names the one that matched, never another (a log must not blame the
// wrong rule).
func (p *planArea) downgradeRuleRight(tool string, rules []string) error {
	s := p.s
	ids := s.callIDsOf(tool)
	for _, e := range s.eventEntries(s.SessionID, wire.EventAskDowngrade) {
		ev := e.Value.(wire.Event)
		mine := slices.Contains(ids, payloadString(ev, "call_id")) || slices.Contains(ids, payloadString(ev, "tool_call_id")) || payloadString(ev, "tool") == tool
		if r := payloadString(ev, "rule"); mine && r != "" && !slices.Contains(rules, r) {
			return fmt.Errorf("the ask_downgrade event #%d about the %q call names rule %q, but the rule that asked for it is %s", e.Seq, tool, r, strings.Join(quoteAll(rules), " or "))
		}
	}
	return nil
}

// downgradeMarks are the kernel's markings of a tool's calls as downgraded
// asks: the ask_downgrade events naming a call (as JSON) and the denial
// texts that say "downgraded".
func (p *planArea) downgradeMarks(tool string) ([]string, error) {
	s := p.s
	ids := s.callIDsOf(tool)
	if len(ids) == 0 {
		return nil, notReached("the model made no call to %q", tool)
	}
	for _, id := range ids {
		if how, ran := s.ranCall(id); ran {
			return nil, fmt.Errorf("expected the call %s to %q to be denied, but the kernel %s", id, tool, how)
		}
	}
	var out []string
	for _, e := range s.eventEntries(s.SessionID, wire.EventAskDowngrade) {
		ev := e.Value.(wire.Event)
		if slices.Contains(ids, payloadString(ev, "call_id")) || slices.Contains(ids, payloadString(ev, "tool_call_id")) || payloadString(ev, "tool") == tool {
			raw, _ := json.Marshal(ev.Payload)
			out = append(out, fmt.Sprintf("ask_downgrade event #%d %s", e.Seq, raw))
		}
	}
	for _, r := range s.modelRequests() {
		for _, m := range r.Messages {
			for _, c := range m.Content {
				if c.Type == wire.BlockToolResult && slices.Contains(ids, c.ToolUseID) && strings.Contains(strings.ToLower(c.Content), "downgrad") {
					out = append(out, fmt.Sprintf("denial text %q", c.Content))
				}
			}
		}
	}
	return out, nil
}

// matchingRules are the names of the scenario's policy rules that match a
// tool (by provider, tool and kind; an empty field matches anything), or
// "default" when none does.
func (p *planArea) matchingRules(tool string) []string {
	t, _ := p.tool(tool)
	var out []string
	for i, r := range p.s.Cfg.Policy.Rules {
		if t != nil && (r.Provider == "" || r.Provider == t.Provider) && (r.Tool == "" || r.Tool == tool) && (r.Kind == "" || r.Kind == t.Kind) {
			if r.Name != "" {
				out = append(out, r.Name)
			} else {
				out = append(out, fmt.Sprintf("#%d", i+1))
			}
		}
	}
	if len(out) == 0 {
		out = []string{"default"}
	}
	return out
}

func namesAny(text string, words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return containsWord(text, w) })
}

// namesKind: the kind as the protocol spells it, or with a space or a dash
// for the underscore.
func namesKind(text, kind string) bool {
	return namesAny(text, []string{kind, strings.ReplaceAll(kind, "_", " "), strings.ReplaceAll(kind, "_", "-")})
}
