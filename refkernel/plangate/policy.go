package plangate

import (
	"fmt"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// Call is what policy sees of one tool call.
type Call struct {
	ID       string // the tool_use id
	Provider string
	Tool     string
	Kind     string
}

// Verdict is a policy decision.
type Verdict struct {
	Decision  string // wire.PolicyAllow, PolicyAsk or PolicyDeny
	DecidedBy string // DecidedByDefault or "rule:<name>"
	Rule      string // the matched rule's name; empty for the default
	// Downgraded is set by Precheck when an ask became a deny.
	Downgraded bool
}

// DecidedBy values besides "rule:<name>".
const (
	DecidedByDefault = "default"
	DecidedBySession = "session_scope"
	DecidedByAlways  = "always_scope"
)

// Evaluator is the swappable policy part. It is pure: memory of earlier
// answers lives in the Gate.
type Evaluator interface {
	// Evaluate decides one plan item.
	Evaluate(rules []wire.PolicyRule, c Call) Verdict
	// Precheck decides a data_source or interactive call: allow or deny.
	Precheck(rules []wire.PolicyRule, c Call) Verdict
}

// Standard is the reference policy engine.
type Standard struct{}

// Evaluate implements Evaluator.
func (Standard) Evaluate(rules []wire.PolicyRule, c Call) Verdict {
	for i, r := range rules {
		if matches(r.Provider, c.Provider) && matches(r.Tool, c.Tool) && matches(r.Kind, c.Kind) {
			name := RuleName(rules, i)
			return Verdict{Decision: strings.ToLower(r.Decision), DecidedBy: "rule:" + name, Rule: name}
		}
	}
	if c.Kind == wire.KindResource {
		return Verdict{Decision: wire.PolicyAsk, DecidedBy: DecidedByDefault}
	}
	return Verdict{Decision: wire.PolicyAllow, DecidedBy: DecidedByDefault}
}

// Precheck implements Evaluator.
func (s Standard) Precheck(rules []wire.PolicyRule, c Call) Verdict {
	v := s.Evaluate(rules, c)
	if v.Decision == wire.PolicyAsk {
		v.Decision, v.Downgraded = wire.PolicyDeny, true
	}
	return v
}

func matches(want, got string) bool { return want == "" || want == got }

// RuleName is a rule's name, or its 1-based position when it has none.
func RuleName(rules []wire.PolicyRule, i int) string {
	if rules[i].Name != "" {
		return rules[i].Name
	}
	return fmt.Sprintf("#%d", i+1)
}

// ValidateRules refuses rules whose decision is not allow, ask or deny.
func ValidateRules(rules []wire.PolicyRule) error {
	for i, r := range rules {
		switch strings.ToLower(r.Decision) {
		case wire.PolicyAllow, wire.PolicyAsk, wire.PolicyDeny:
		default:
			return fmt.Errorf("policy rule %s: unknown decision %q", RuleName(rules, i), r.Decision)
		}
	}
	return nil
}

// DenialText is the tool_result content of a call policy denied.
func DenialText(v Verdict, kind string) string {
	by := "the policy default"
	if v.Rule != "" {
		by = "policy rule " + v.Rule
	}
	if v.Downgraded {
		return fmt.Sprintf("denied by %s: it asks for approval, which a %s call cannot get, so the ask was downgraded to deny", by, kind)
	}
	return "denied by " + by
}
