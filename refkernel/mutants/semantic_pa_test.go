package mutants

import (
	"slices"
	"strings"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/spec/wire"
)

// Semantic mutants of the plan/apply area (issue 29): policy engines and
// breakers as they are really written wrong.
//
//   - off by one: the window tier looks at one decision fewer than window
//     (PA-05);
//   - a field ignored: a rule's kind, so a rule written for resources
//     decides reads and interactive calls too (PA-10);
//   - keyed by the wrong field: a rule matches on the tool's name alone,
//     whichever provider the call is for (PA-01);
//   - the wrong member of a group: the last matching rule decides, not the
//     first (PA-01);
//   - state shared across sessions: a SESSION-scope answer is stored like an
//     ALWAYS one, so it reaches later sessions (PA-18).
func init() {
	register(
		Mutant{Name: "semantic/rule-kind-ignored", Targets: []string{"PA-10"},
			Breaks: "a policy rule's kind is ignored: a rule written for resource calls decides reads and interactive calls too",
			Apply:  withPolicy(kindIgnored{})},
		Mutant{Name: "semantic/breaker-window-one-short", Targets: []string{"PA-05"},
			Breaks: "the window tier counts denials among the last window−1 decisions",
			Apply:  withBreaker(breakerWindowShort{})},
		Mutant{Name: "semantic/rule-matches-tool-name-only", Targets: []string{"PA-01"},
			Breaks: "a policy rule matches a call by its tool name alone, ignoring the rule's provider",
			Apply:  withPolicy(toolNameOnly{})},
		Mutant{Name: "semantic/last-matching-rule-wins", Targets: []string{"PA-01"},
			Breaks: "when several rules match a call the last one decides, not the first",
			Apply:  withPolicy(lastRuleWins{})},
		Mutant{Name: "semantic/session-scope-outlives-session", Targets: []string{"PA-18"},
			Breaks: "a SESSION-scope answer is stored with the kernel's persisted decisions, so later sessions of the profile inherit it",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = sessionAsAlways{}
				return p
			}},
	)
}

func withBreaker(b plangate.Breaker) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.Breaker = b
		return p
	}
}

func withPolicy(e plangate.Evaluator) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.Policy = e
		return p
	}
}

type kindIgnored struct{ plangate.Standard }

func (kindIgnored) Evaluate(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
	stripped := make([]wire.PolicyRule, len(rules))
	for i, r := range rules {
		r.Kind = ""
		stripped[i] = r
	}
	return plangate.Standard{}.Evaluate(stripped, c)
}

func (k kindIgnored) Precheck(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
	return precheck(k.Evaluate(rules, c))
}

type breakerWindowShort struct{ plangate.StandardBreaker }

func (breakerWindowShort) Check(cfg *wire.CircuitBreaker, history []bool) (plangate.Trip, bool) {
	if cfg != nil && cfg.Window > 1 {
		c := *cfg
		c.Window--
		cfg = &c
	}
	return plangate.StandardBreaker{}.Check(cfg, history)
}

type toolNameOnly struct{ plangate.Standard }

func (toolNameOnly) Evaluate(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
	stripped := make([]wire.PolicyRule, len(rules))
	for i, r := range rules {
		if r.Tool != "" {
			r.Provider = ""
		}
		stripped[i] = r
	}
	return plangate.Standard{}.Evaluate(stripped, c)
}

func (t toolNameOnly) Precheck(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
	return precheck(t.Evaluate(rules, c))
}

type lastRuleWins struct{ plangate.Standard }

func (lastRuleWins) Evaluate(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if (r.Provider == "" || r.Provider == c.Provider) && (r.Tool == "" || r.Tool == c.Tool) && (r.Kind == "" || r.Kind == c.Kind) {
			name := plangate.RuleName(rules, i)
			return plangate.Verdict{Decision: strings.ToLower(r.Decision), DecidedBy: "rule:" + name, Rule: name}
		}
	}
	return plangate.Standard{}.Evaluate(nil, c)
}

func (l lastRuleWins) Precheck(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
	return precheck(l.Evaluate(rules, c))
}

func precheck(v plangate.Verdict) plangate.Verdict {
	if v.Decision == wire.PolicyAsk {
		v.Decision, v.Downgraded = wire.PolicyDeny, true
	}
	return v
}

type sessionAsAlways struct{ plangate.StandardAnswers }

func (sessionAsAlways) Lifetime(scope string, persist bool) plangate.Lifetime {
	if scope == wire.ScopeSession && persist {
		return plangate.LifetimeAlways
	}
	return plangate.StandardAnswers{}.Lifetime(scope, persist)
}

// State kept for the root only (issue 29): the policy gate is attached to
// the top-level agent, so a child's resource calls run as its profile
// lists them, undecided. Only a denial in a child shows it (PA-03, tree
// side).
func init() {
	register(Mutant{Name: "semantic/policy-for-root-only", Targets: []string{"PA-03"},
		Breaks: "a child session's resource calls skip the policy gate and run",
		Apply: func(p loop.Parts) loop.Parts {
			steps := slices.Clone(p.Steps)
			i := slices.IndexFunc(steps, func(s loop.Step) bool { return s.Name == loop.StepPlanReady })
			run := steps[i].Run
			steps[i].Run = func(t *loop.Turn) error {
				if !strings.Contains(t.Session.ID(), "/") { // the reference names a child parent/cN
					return run(t)
				}
				for _, c := range t.ToolCalls() {
					if c.Kind() == wire.KindResource && c.Result == nil {
						c.Allowed = true
					}
				}
				return nil
			}
			p.Steps = steps
			return p
		}})
}
