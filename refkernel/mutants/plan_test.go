package mutants

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/spec/wire"
)

// Mutants of the plan/apply gate: the policy engine and precheck, the
// meaning of frontend answers, the circuit breaker, and swapped-in steps
// around plan building and the interactive step.
func init() {
	std := plangate.Standard{}
	register(
		Mutant{Name: "policy/first-rule-for-every-item", Targets: []string{"PA-01"},
			Breaks: "one policy decision for the whole plan: the first rule decides every item, whatever it matches",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = gatePolicy{eval: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
					if len(rules) > 0 {
						r := rules[0]
						r.Provider, r.Tool, r.Kind = "", "", ""
						return std.Evaluate([]wire.PolicyRule{r}, c)
					}
					return std.Evaluate(rules, c)
				}}
				return p
			}},
		Mutant{Name: "policy/denied-call-runs", Targets: []string{"PA-01", "PA-03"},
			Breaks: "a resource item policy denies is applied anyway",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = gatePolicy{eval: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
					v := std.Evaluate(rules, c)
					if v.Decision == wire.PolicyDeny && c.Kind == wire.KindResource {
						v.Decision = wire.PolicyAllow
					}
					return v
				}}
				return p
			}},
		Mutant{Name: "policy/ask-means-allow", Targets: []string{"PA-08", "PA-10"},
			Breaks: "an ask on a resource item applies it without asking anyone",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = gatePolicy{eval: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
					v := std.Evaluate(rules, c)
					if v.Decision == wire.PolicyAsk {
						v.Decision = wire.PolicyAllow
					}
					return v
				}}
				return p
			}},
		Mutant{Name: "policy/defaults-swapped", Targets: []string{"PA-10"},
			Breaks: "with no matching rule a resource is allowed and a read or interactive call is denied",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = gatePolicy{eval: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
					v := std.Evaluate(rules, c)
					if v.Rule == "" {
						if c.Kind == wire.KindResource {
							v.Decision = wire.PolicyAllow
						} else {
							v.Decision = wire.PolicyDeny
						}
					}
					return v
				}}
				return p
			}},
		Mutant{Name: "policy/no-decided-by", Targets: []string{"PA-14"},
			Breaks: "plan_item rows are written without decided_by",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = gatePolicy{eval: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
					v := std.Evaluate(rules, c)
					v.DecidedBy = ""
					return v
				}}
				return p
			}},
		Mutant{Name: "precheck/ask-on-read-allowed", Targets: []string{"PA-06"},
			Breaks: "an ask winning on a read or interactive call lets it run instead of denying it",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = gatePolicy{pre: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
					v := std.Evaluate(rules, c)
					if v.Decision == wire.PolicyAsk {
						v.Decision = wire.PolicyAllow
					}
					return v
				}}
				return p
			}},
		Mutant{Name: "precheck/ask-on-read-sent-to-frontend", Targets: []string{"PA-06"},
			Breaks: "an ask winning on a read is passed through as an ask: the frontend is asked and the read runs if allowed",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = insertBefore(p.Steps, loop.StepDataSources, "ask-about-reads", func(t *loop.Turn) error {
					rules := t.Config().Policy.Rules
					for _, c := range t.ToolCalls() {
						if c.Result != nil || c.Kind() != wire.KindDataSource {
							continue
						}
						v := std.Evaluate(rules, plangate.Call{ID: c.Use.ID, Provider: c.Schema.Provider, Tool: c.Use.Name, Kind: c.Kind()})
						if v.Decision != wire.PolicyAsk {
							continue
						}
						item := wire.PlanItem{ID: "read-" + c.Use.ID, ToolCallID: c.Use.ID, Provider: c.Schema.Provider, Tool: c.Use.Name,
							Kind: c.Kind(), Risk: c.Schema.Risk, Description: c.Schema.Description, Input: c.Input,
							Decision: wire.PolicyAsk, DecidedBy: v.DecidedBy}
						res, err := t.Host().Permission(t.Ctx, wire.PermissionParams{CallContext: t.CallContext, Items: []wire.PlanItem{item}})
						if err != nil || len(res.Decisions) == 0 || res.Decisions[0].Decision != wire.DecisionAllow {
							c.Result = &wire.ToolResult{Content: "denied by the user", IsError: true, ErrorCategory: wire.ToolErrPermissionDenied}
							continue
						}
						out, err := t.Host().Invoke(t.Ctx, wire.ToolInvokeParams{CallContext: t.CallContext, CallID: c.Use.ID,
							Provider: c.Schema.Provider, Tool: c.Use.Name, Input: c.Input, Attempt: 1})
						c.Executed = true
						c.Result = &wire.ToolResult{Content: string(out.Output)}
						if err != nil {
							c.Result = &wire.ToolResult{Content: err.Error(), IsError: true}
						}
					}
					return nil
				})
				return p
			}},
		Mutant{Name: "precheck/downgrade-unreported", Targets: []string{"PA-09"},
			Breaks: "an ask downgraded to deny is reported exactly like a plain deny",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = gatePolicy{pre: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
					v := std.Precheck(rules, c)
					v.Downgraded = false
					return v
				}}
				return p
			}},
		Mutant{Name: "answers/session-scope-forgotten", Targets: []string{"PA-18"},
			Breaks: "a SESSION-scoped answer is treated as ONCE: every later call is asked again",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = gateAnswers{life: func(scope string, persist bool) plangate.Lifetime {
					if scope == wire.ScopeSession {
						return plangate.LifetimeOnce
					}
					return plangate.StandardAnswers{}.Lifetime(scope, persist)
				}}
				return p
			}},
		Mutant{Name: "answers/always-silently-session", Targets: []string{"PA-19"},
			Breaks: "an ALWAYS answer the kernel cannot persist is quietly kept for the session instead of refused",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = gateAnswers{life: func(scope string, persist bool) plangate.Lifetime {
					if scope == wire.ScopeAlways && !persist {
						return plangate.LifetimeSession
					}
					return plangate.StandardAnswers{}.Lifetime(scope, persist)
				}}
				return p
			}},
		Mutant{Name: "answers/always-never-stored", Targets: []string{"PA-19"},
			Breaks: "an ALWAYS answer is kept for the session only, even with a writable policy store",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = gateAnswers{life: func(scope string, persist bool) plangate.Lifetime {
					if scope == wire.ScopeAlways && persist {
						return plangate.LifetimeSession
					}
					return plangate.StandardAnswers{}.Lifetime(scope, persist)
				}}
				return p
			}},
		Mutant{Name: "answers/correction-unchecked", Targets: []string{"PA-17"},
			Breaks: "a corrected_input is used without checking it against the tool's input_schema",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = gateAnswers{check: func(map[string]any, json.RawMessage) error { return nil }}
				return p
			}},
		Mutant{Name: "breaker/never-trips", Targets: []string{"PA-05"},
			Breaks: "the denial circuit breaker never trips",
			Apply: func(p loop.Parts) loop.Parts {
				p.Breaker = breakerOff{}
				return p
			}},
		Mutant{Name: "plan/denial-without-reason", Targets: []string{"PA-03"},
			Breaks: "a denied call's tool_result is empty: the model is not told why",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = insertBefore(p.Steps, loop.StepPostToolCall, "blank-denials", func(t *loop.Turn) error {
					for _, c := range t.ToolCalls() {
						if c.Result != nil && c.Result.ErrorCategory == wire.ToolErrPermissionDenied && !c.Executed {
							c.Result = &wire.ToolResult{}
						}
					}
					return nil
				})
				return p
			}},
		Mutant{Name: "plan/plan-mode-by-interception", Targets: []string{"PA-04"},
			Breaks: "plan mode offers the resource tools and only refuses resource calls after the model made them",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = insertBefore(p.Steps, loop.StepModelCall, "offer-resources", func(t *loop.Turn) error {
					if t.Request == nil || t.Final != nil {
						return nil
					}
					offered := map[string]bool{}
					for _, s := range t.Request.Tools {
						offered[s.Name] = true
					}
					for _, s := range t.Config().Tools {
						if s.Kind == wire.KindResource && !offered[s.Name] {
							t.Request.Tools = append(t.Request.Tools, wire.ToolSpec{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema})
						}
					}
					return nil
				})
				return p
			}},
		Mutant{Name: "plan/preview-for-reads", Targets: []string{"PA-11"},
			Breaks: "reads and interactive calls of tools with a preview get a tool/preview too",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = insertBefore(p.Steps, loop.StepDataSources, "preview-everything", func(t *loop.Turn) error {
					for _, c := range t.ToolCalls() {
						if c.Schema != nil && c.Schema.HasPreview && c.Kind() != wire.KindResource {
							_, _ = t.Host().Preview(t.Ctx, wire.ToolPreviewParams{CallContext: t.CallContext, CallID: c.Use.ID,
								Provider: c.Schema.Provider, Tool: c.Use.Name, Input: c.Input})
						}
					}
					return nil
				})
				return p
			}},
		Mutant{Name: "plan/failing-preview-aborts", Targets: []string{"PA-12"},
			Breaks: "a preview that fails ends the session instead of leaving the item without a preview",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = insertBefore(p.Steps, loop.StepBuildPlan, "preview-or-fail", func(t *loop.Turn) error {
					for _, c := range t.ToolCalls() {
						if c.Result != nil || c.Schema == nil || !c.Schema.HasPreview || c.Kind() != wire.KindResource {
							continue
						}
						ctx, cancel := context.WithTimeout(t.Ctx, time.Second)
						_, err := t.Host().Preview(ctx, wire.ToolPreviewParams{CallContext: t.CallContext, CallID: c.Use.ID,
							Provider: c.Schema.Provider, Tool: c.Use.Name, Input: c.Input})
						timedOut := ctx.Err() != nil
						cancel()
						if err != nil && !timedOut && !errors.Is(err, context.DeadlineExceeded) {
							return err
						}
					}
					return nil
				})
				return p
			}},
		Mutant{Name: "plan/items-not-snapshots", Targets: []string{"PA-13"},
			Breaks: "plan items do not carry the risk and description the tool declared when the plan was built",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = insertBefore(p.Steps, loop.StepPlanReady, "relabel-items", func(t *loop.Turn) error {
					for i := range t.Plan.Items {
						t.Plan.Items[i].Risk = "low"
						t.Plan.Items[i].Description = "looked up later"
					}
					return nil
				})
				return p
			}},
		Mutant{Name: "plan/interactive-through-gate", Targets: []string{"PA-15"},
			Breaks: "interactive calls go through the resource approval gate: a permission request comes first",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = insertBefore(p.Steps, loop.StepInteractive, "gate-interactive", func(t *loop.Turn) error {
					var items []wire.PlanItem
					for _, c := range t.ToolCalls() {
						if c.Result == nil && c.Kind() == wire.KindInteractive {
							items = append(items, wire.PlanItem{ID: "gate-" + c.Use.ID, ToolCallID: c.Use.ID, Provider: c.Schema.Provider,
								Tool: c.Use.Name, Kind: c.Kind(), Risk: c.Schema.Risk, Description: c.Schema.Description,
								Input: c.Input, Decision: wire.PolicyAsk, DecidedBy: "mutant"})
						}
					}
					if len(items) > 0 {
						_, err := t.Host().Permission(t.Ctx, wire.PermissionParams{CallContext: t.CallContext, Items: items})
						return err
					}
					return nil
				})
				return p
			}},
	)
}

// gatePolicy swaps Evaluate and/or Precheck of the reference engine.
type gatePolicy struct {
	eval func([]wire.PolicyRule, plangate.Call) plangate.Verdict
	pre  func([]wire.PolicyRule, plangate.Call) plangate.Verdict
}

func (p gatePolicy) Evaluate(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
	if p.eval != nil {
		return p.eval(rules, c)
	}
	return plangate.Standard{}.Evaluate(rules, c)
}

func (p gatePolicy) Precheck(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
	if p.pre != nil {
		return p.pre(rules, c)
	}
	return plangate.Standard{}.Precheck(rules, c)
}

// gateAnswers swaps parts of the reference interpretation of frontend answers.
type gateAnswers struct {
	life  func(scope string, persist bool) plangate.Lifetime
	check func(map[string]any, json.RawMessage) error
}

func (a gateAnswers) Lifetime(scope string, persist bool) plangate.Lifetime {
	if a.life != nil {
		return a.life(scope, persist)
	}
	return plangate.StandardAnswers{}.Lifetime(scope, persist)
}

func (a gateAnswers) CheckCorrection(schema map[string]any, in json.RawMessage) error {
	if a.check != nil {
		return a.check(schema, in)
	}
	return plangate.StandardAnswers{}.CheckCorrection(schema, in)
}

type breakerOff struct{}

func (breakerOff) Check(*wire.CircuitBreaker, []bool) (plangate.Trip, bool) {
	return plangate.Trip{}, false
}

// insertBefore returns steps with an extra step inserted just before the named one.
func insertBefore(steps []loop.Step, name, extra string, run func(t *loop.Turn) error) []loop.Step {
	if len(steps) == 0 {
		steps = loop.DefaultSteps()
	}
	out := []loop.Step{}
	for _, s := range steps {
		if s.Name == name {
			out = append(out, loop.Step{Name: extra, Run: run})
		}
		out = append(out, s)
	}
	return out
}
