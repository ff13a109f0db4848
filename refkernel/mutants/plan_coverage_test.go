package mutants

import (
	"encoding/json"

	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/spec/wire"
)

// Mutants that single-example scenarios let through (issue 12 §1): a denial
// that says nothing about who denied, a downgrade marker without rule or
// kind, a downgrade of one kind only, and remembered decisions that hold
// for only one decision, too long or too widely.
func init() {
	std := plangate.Standard{}
	register(
		Mutant{Name: "plan/denial-names-no-decider", Targets: []string{"PA-03"},
			Breaks: "a denied call's tool_result says only \"denied.\": no rule, no decider, no user",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = insertBefore(p.Steps, loop.StepPostToolCall, "vague-denials", func(t *loop.Turn) error {
					for _, c := range t.ToolCalls() {
						if c.Result != nil && c.Result.ErrorCategory == wire.ToolErrPermissionDenied && !c.Executed {
							c.Result.Content = "denied."
						}
					}
					return nil
				})
				return p
			}},
		Mutant{Name: "precheck/downgrade-names-no-rule-or-kind", Targets: []string{"PA-09"},
			Breaks: "a downgraded ask is reported by an ask_downgrade event that names only the call, and its denial reads like a plain deny",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = gatePolicy{pre: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
					v := std.Precheck(rules, c)
					v.Downgraded = false
					return v
				}}
				p.Steps = insertBefore(p.Steps, loop.StepDataSources, "bare-downgrade-events", func(t *loop.Turn) error {
					rules := t.Config().Policy.Rules
					for _, c := range t.ToolCalls() {
						if c.Result != nil || c.Schema == nil || c.Kind() == wire.KindResource {
							continue
						}
						if std.Precheck(rules, plangate.Call{ID: c.Use.ID, Provider: c.Schema.Provider, Tool: c.Use.Name, Kind: c.Kind()}).Downgraded {
							host.Emit(t.Host(), t.CallContext.SessionID, t.CallContext.TurnID, wire.EventAskDowngrade, host.KernelProducer,
								map[string]any{"call_id": c.Use.ID})
						}
					}
					return nil
				})
				return p
			}},
		Mutant{Name: "precheck/interactive-downgrade-unreported", Targets: []string{"PA-09"},
			Breaks: "an ask downgraded to deny on an interactive call is reported like a plain deny (reads are still marked)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = gatePolicy{pre: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
					v := std.Precheck(rules, c)
					if c.Kind == wire.KindInteractive {
						v.Downgraded = false
					}
					return v
				}}
				return p
			}},
		Mutant{Name: "answers/session-deny-forgotten", Targets: []string{"PA-18"},
			Breaks: "a SESSION-scoped DENY holds for its item only; the next call of the tool is asked again (a SESSION ALLOW is remembered)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = decisionAnswers(func(decision, scope string, persist bool) plangate.Lifetime {
					if decision == wire.PolicyDeny && scope == wire.ScopeSession {
						return plangate.LifetimeOnce
					}
					return plangate.StandardAnswers{}.Lifetime(scope, persist)
				})
				return p
			}},
		Mutant{Name: "answers/always-deny-not-stored", Targets: []string{"PA-19"},
			Breaks: "an ALWAYS DENY is kept for the session only, even with a writable policy store (an ALWAYS ALLOW is stored)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = decisionAnswers(func(decision, scope string, persist bool) plangate.Lifetime {
					if decision == wire.PolicyDeny && scope == wire.ScopeAlways && persist {
						return plangate.LifetimeSession
					}
					return plangate.StandardAnswers{}.Lifetime(scope, persist)
				})
				return p
			}},
		Mutant{Name: "answers/once-held-for-the-session", Targets: []string{"PA-18"},
			Breaks: "a ONCE answer is remembered like a SESSION one: later calls of the tool are decided without asking",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = gateAnswers{life: func(scope string, persist bool) plangate.Lifetime {
					if scope == wire.ScopeOnce || scope == "" {
						return plangate.LifetimeSession
					}
					return plangate.StandardAnswers{}.Lifetime(scope, persist)
				}}
				return p
			}},
		Mutant{Name: "answers/session-verdict-per-provider", Targets: []string{"PA-18"},
			Breaks: "a SESSION-scoped verdict covers every tool of the provider, not just the tool it was given for",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = providerMemory{}
				return p
			}},
	)
}

// decisionAnswers lets a decision's lifetime depend on the decision.
type decisionAnswers func(decision, scope string, persist bool) plangate.Lifetime

func (f decisionAnswers) Lifetime(scope string, persist bool) plangate.Lifetime {
	return plangate.StandardAnswers{}.Lifetime(scope, persist)
}

func (f decisionAnswers) LifetimeOf(decision, scope string, persist bool) plangate.Lifetime {
	return f(decision, scope, persist)
}

func (f decisionAnswers) CheckCorrection(schema map[string]any, in json.RawMessage) error {
	return plangate.StandardAnswers{}.CheckCorrection(schema, in)
}

// providerMemory remembers verdicts per provider.
type providerMemory struct{ plangate.StandardAnswers }

func (providerMemory) MemoryKey(provider, _ string) [2]string { return [2]string{provider, ""} }
