package mutants

import (
	"math/rand/v2"
	"time"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
)

// Legal variants of the counts and links a kernel declares (PROTOCOL.md
// §15: errors.max_reductions, errors.tool_retries, retry.jitter_max_ratio,
// trace.child_sessions): another count, declared, is held to itself; a
// kernel that declares none is held only to what every reading shares.
func init() {
	registerVariant(
		Variant{Name: "errors/one-reduction-declared",
			Reading: "one context-reduction pass per model call before the turn fails, declared as errors.max_reductions = 1 (A-27 names no number)",
			Apply:   withRetry(reductions{max: 1}),
			Options: []refkernel.Option{withReading("errors.max_reductions", "1")},
			Tags:    "@ER-03,@ER-06"},
		Variant{Name: "errors/no-tool-retries-declared",
			Reading: "a retryable tool error is never retried automatically, declared as errors.tool_retries = 0 (ER-11 allows retries of idempotent and data_source calls, never requires them)",
			Apply:   withTools(noToolRetry{}),
			Options: []refkernel.Option{withReading("errors.tool_retries", "0")},
			Tags:    "@ER-11"},
		Variant{Name: "errors/counts-undeclared",
			Reading: "four reduction passes and one tool retry, neither declared: only what every reading shares is asked (a reduce pass, a bounded number of requests; attempts numbered from 1)",
			Apply: func(p loop.Parts) loop.Parts {
				p = withRetry(reductions{max: 4})(p)
				return withTools(oneToolRetry{})(p)
			},
			Options: []refkernel.Option{withoutReadings("errors.max_reductions", "errors.tool_retries")},
			Tags:    "@ER-06,@ER-11"},
		Variant{Name: "errors/jitter-above-nominal-undeclared-ceiling",
			Reading: "every backoff wait is drawn from [nominal, 1.5 × nominal] and announced so, with retry.jitter_max_ratio left out (A-26: any jitter up to 2 × nominal); the floor 0.5 it still declares holds",
			Apply:   withRetry(jitterAbove{}),
			Options: []refkernel.Option{withoutReadings("retry.jitter_max_ratio")},
			Tags:    "@ER-01,@ER-05"},
		Variant{Name: "trace/child-link-undeclared",
			Reading: "the kernel does not say how its child sessions' spans link to the parent's trace (trace.child_sessions left out): the scenario that holds a kernel to it is skipped",
			Options: []refkernel.Option{withoutReadings("trace.child_sessions")},
			Tags:    "@TA-17"},
	)
}

// Broken counts and delays the same readings catch: a kernel whose
// behaviour departs from what it declares.
func init() {
	register(
		Mutant{Name: "retry/reductions-beyond-declared", Targets: []string{"ER-06"},
			Breaks: "three context-reduction passes per model call while the kernel declares errors.max_reductions = 2",
			Apply:  withRetry(reductions{max: retry.MaxReductions + 1})},
		Mutant{Name: "tools/fewer-retries-than-declared", Targets: []string{"ER-11"},
			Breaks: "one automatic tool retry while the kernel declares errors.tool_retries = 2",
			Apply:  withTools(oneToolRetry{})},
		Mutant{Name: "retry/jitter-above-declared-ceiling", Targets: []string{"ER-01"},
			Breaks:  "every backoff wait is drawn from [nominal, 1.5 × nominal] while the kernel declares retry.jitter_max_ratio = 1",
			Apply:   withRetry(jitterAbove{}),
			Options: []refkernel.Option{withReading("retry.jitter_max_ratio", "1")}},
		Mutant{Name: "retry/announced-without-jitter", Targets: []string{"ER-01"},
			Breaks: "every backoff wait is exactly its nominal delay: no jitter (ER-01: exponential backoff plus jitter)",
			Apply:  withRetry(noJitter{})},
	)
}

// noJitter waits the nominal delay, or the retry-after when longer.
type noJitter struct{ retry.Backoff }

func (j noJitter) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := j.Backoff.Decide(cfg, e, s)
	if d.Action == retry.Retry {
		d.Delay = retry.Backoff{Rand: func() float64 { return 0 }}.Delay(retry.Resolve(cfg), s.Attempt, e.RetryAfterMS)
	}
	return d
}

// reductions is the reference policy with another cap on reduction passes.
type reductions struct {
	retry.Backoff
	max int
}

func (r reductions) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	if e.Category == wire.ModelErrContextLength {
		if s.Reductions < r.max {
			return retry.Decision{Action: retry.Reduce}
		}
		return retry.Decision{Action: retry.Fail}
	}
	return r.Backoff.Decide(cfg, e, s)
}

type noToolRetry struct{ retry.StandardTools }

func (noToolRetry) Retry(wire.ToolSchema, int) bool { return false }

type oneToolRetry struct{ retry.StandardTools }

func (oneToolRetry) Retry(t wire.ToolSchema, attempt int) bool {
	return attempt <= 1 && retry.StandardTools{}.Retry(t, attempt)
}

// jitterAbove waits between the nominal delay and half as long again.
type jitterAbove struct{ retry.Backoff }

func (j jitterAbove) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := j.Backoff.Decide(cfg, e, s)
	if d.Action != retry.Retry {
		return d
	}
	n := retry.Resolve(cfg).Nominal(s.Attempt)
	w := n + time.Duration(float64(n)/2*rand.Float64())
	if e.RetryAfterMS != nil {
		w = max(w, time.Duration(*e.RetryAfterMS)*time.Millisecond)
	}
	d.Delay = w
	return d
}
