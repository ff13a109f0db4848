package loop

import (
	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/cost"
	"github.com/agentconform/conform/refkernel/dfirst"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/refkernel/schedule"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/refkernel/trace"
)

// Parts are the kernel's swappable pieces. A zero field means the reference
// part, so a test can replace just one.
type Parts struct {
	Steps     []Step              // the steps of a turn, in order
	Bounds    bounds.Checker      // step 17
	Limit     LimitPolicy         // what happens once a bound fired
	Done      DoneDetector        // step 6 and terminal tools
	Hooks     hooks.Dispatcher    // every hook dispatch
	Tracer    trace.Factory       // one tracer per session
	DoomLoop  doomloop.Detector   // step 16
	Cost      cost.Calculator     // pricing of usage events
	Scheduler schedule.Scheduler  // steps 9 and 12
	Policy    plangate.Evaluator  // rule evaluation and precheck
	Retry     retry.Policy        // model error retries
	ToolErrs  retry.ToolPolicy    // tool error results, tool retries, crash breaker
	Keys      schedule.Keyer      // concurrency keys of steps 9, 9b and 12
	Answers   plangate.Answers    // decision scopes and corrected inputs
	Breaker   plangate.Breaker    // the denial circuit breaker
	Arbiter   plangate.Arbiter    // late decisions of several frontend connections (PA-16)
	LoopCheck doomloop.ModelCheck // step 16, second tier (TA-13)
	Ledger    cost.Reporter       // cost/usage reports (TA-23)
	Subagents subagent.Policy     // the session tree: spawns, depth, budgets (SA-*, TA-07)
	DFirst    dfirst.Profile      // the deterministic-first profile (DF-*, dfirst.go)
}

// DefaultParts returns the reference parts.
func DefaultParts() Parts {
	return Parts{
		Steps:     DefaultSteps(),
		Bounds:    bounds.Standard{},
		Limit:     StandardLimit{},
		Done:      StandardDone{},
		Hooks:     hooks.Standard{},
		Tracer:    trace.New,
		DoomLoop:  doomloop.Standard{},
		Cost:      cost.Standard{},
		Scheduler: schedule.Standard{},
		Policy:    plangate.Standard{},
		Retry:     retry.Backoff{},
		ToolErrs:  retry.StandardTools{},
		Keys:      schedule.StandardKeys{},
		Answers:   plangate.StandardAnswers{},
		Breaker:   plangate.StandardBreaker{},
		Arbiter:   plangate.StandardArbiter{},
		LoopCheck: doomloop.StandardCheck{},
		Ledger:    cost.Immediate{},
		Subagents: subagent.Standard{},
		DFirst:    dfirst.Standard{},
	}
}

// WithDefaults fills every unset part with the reference one.
func (p Parts) WithDefaults() Parts {
	d := DefaultParts()
	if len(p.Steps) == 0 {
		p.Steps = d.Steps
	}
	if p.Bounds == nil {
		p.Bounds = d.Bounds
	}
	if p.Limit == nil {
		p.Limit = d.Limit
	}
	if p.Done == nil {
		p.Done = d.Done
	}
	if p.Hooks == nil {
		p.Hooks = d.Hooks
	}
	if p.Tracer == nil {
		p.Tracer = d.Tracer
	}
	if p.DoomLoop == nil {
		p.DoomLoop = d.DoomLoop
	}
	if p.Cost == nil {
		p.Cost = d.Cost
	}
	if p.Scheduler == nil {
		p.Scheduler = d.Scheduler
	}
	if p.Policy == nil {
		p.Policy = d.Policy
	}
	if p.Retry == nil {
		p.Retry = d.Retry
	}
	if p.ToolErrs == nil {
		p.ToolErrs = d.ToolErrs
	}
	if p.Keys == nil {
		p.Keys = d.Keys
	}
	if p.Answers == nil {
		p.Answers = d.Answers
	}
	if p.Breaker == nil {
		p.Breaker = d.Breaker
	}
	if p.Arbiter == nil {
		p.Arbiter = d.Arbiter
	}
	if p.LoopCheck == nil {
		p.LoopCheck = d.LoopCheck
	}
	if p.Ledger == nil {
		p.Ledger = d.Ledger
	}
	if p.Subagents == nil {
		p.Subagents = d.Subagents
	}
	if p.DFirst == nil {
		p.DFirst = d.DFirst
	}
	return p
}
