package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
	"pgregory.net/rapid"
)

// Property test of model-error recovery (rapid): random sequences of model
// errors and successes, random retry settings, run in-process on a clock
// that records every wait and returns at once (virtual time, so the test
// is fast and the waits are exact; base delays of a few ms).

// waitClock is a virtual clock: After records the wait, moves the clock
// and fires at once.
type waitClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *waitClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *waitClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// outcome is the fake model's answer to one request.
type outcome struct {
	err        *wire.ModelError // nil: a success
	call       bool             // a success with a tool call (the session goes on)
	retryAfter int64            // ms, 0 = none
}

var categories = []string{
	wire.ModelErrRateLimited, wire.ModelErrOverloaded, wire.ModelErrContextLength,
	wire.ModelErrAuth, wire.ModelErrInvalidRequest, wire.ModelErrContentFiltered, wire.ModelErrUnknown,
}

func transient(cat string) bool {
	return cat == wire.ModelErrRateLimited || cat == wire.ModelErrOverloaded
}

type retryCase struct {
	cfg     *wire.Retry
	set     retry.Settings
	script  []outcome
	describ string
}

// caseGen draws retry settings (sometimes none: the defaults) and a script
// of up to 24 model answers, with bursts of transient errors to reach the
// caps.
var caseGen = rapid.Custom(func(t *rapid.T) retryCase {
	var c retryCase
	if rapid.IntRange(0, 4).Draw(t, "explicit") > 0 {
		base := rapid.SampledFrom([]int{0, 1, 2, 5}).Draw(t, "base_ms")
		factor := rapid.SampledFrom([]float64{1, 1.5, 2, 3}).Draw(t, "factor")
		n := rapid.IntRange(0, 4).Draw(t, "max_retries")
		c.cfg = &wire.Retry{BaseDelayMS: &base, BackoffFactor: &factor, MaxRetries: &n}
		if rapid.Bool().Draw(t, "session_cap") {
			m := rapid.IntRange(0, 8).Draw(t, "session_max_retries")
			c.cfg.SessionMaxRetries = &m
		}
	}
	c.set = retry.Resolve(c.cfg)
	for range rapid.IntRange(1, 24).Draw(t, "answers") {
		switch rapid.IntRange(0, 9).Draw(t, "kind") {
		case 0:
			c.script = append(c.script, outcome{}) // text: the session ends
		case 1, 2, 3:
			c.script = append(c.script, outcome{call: true})
		default:
			cat := rapid.SampledFrom(categories).Draw(t, "category")
			o := outcome{err: &wire.ModelError{Category: cat, Message: "scripted " + cat, Retryable: transient(cat)}}
			if rapid.IntRange(0, 3).Draw(t, "with_retry_after") == 0 {
				o.retryAfter = int64(rapid.IntRange(0, 40).Draw(t, "retry_after_ms"))
				o.err.RetryAfterMS = &o.retryAfter
			}
			c.script = append(c.script, o)
			if transient(cat) {
				for range rapid.IntRange(0, 5).Draw(t, "burst") {
					c.script = append(c.script, o)
				}
			}
		}
	}
	c.describ = fmt.Sprintf("settings %+v, script%s", c.set, scriptString(c.script))
	return c
})

func scriptString(s []outcome) string {
	out := ""
	for i, o := range s {
		switch {
		case o.err != nil && o.retryAfter > 0:
			out += fmt.Sprintf(" %d:%s(ra %dms)", i+1, o.err.Category, o.retryAfter)
		case o.err != nil:
			out += fmt.Sprintf(" %d:%s", i+1, o.err.Category)
		case o.call:
			out += fmt.Sprintf(" %d:call", i+1)
		default:
			out += fmt.Sprintf(" %d:text", i+1)
		}
	}
	return out
}

func (c retryCase) answer(n int) wire.ModelStreamResult {
	if n > len(c.script) {
		return fakehost.Text("done")
	}
	o := c.script[n-1]
	switch {
	case o.err != nil:
		e := *o.err
		return wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventErrorSE, Error: &e}}}
	case o.call:
		return fakehost.Calls(fakehost.Call(fmt.Sprintf("c%d", n), "read", fmt.Sprintf(`{"n":%d}`, n)))
	}
	return fakehost.Text("finished")
}

func requestKey(p wire.ModelStreamParams) string {
	p.Attempt = 0
	b, _ := json.Marshal(p)
	return string(b)
}

// checkRetryCase runs one case and returns the broken invariant, if any.
func checkRetryCase(c retryCase, parts Parts) error {
	h := &fakehost.Host{
		OnModel:       func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) { return c.answer(n), nil },
		Contributions: []wire.Contribution{{Source: "ctx", Text: "fixed context"}},
	}
	clk := &waitClock{now: epoch}
	cfg := baseConfig()
	cfg.Retry = c.cfg
	s, err := NewSession(Setup{Parts: parts, Host: h, Clock: clk, Params: wire.RunParams{SessionID: "p", Prompt: "go", Config: cfg}})
	if err != nil {
		return err
	}
	res := s.Run(context.Background())
	reqs := h.Requests()
	outcomeOf := func(i int) outcome { // request i, 0-based
		if i < len(c.script) {
			return c.script[i]
		}
		return outcome{}
	}

	sessionRetries, waitIx := 0, 0
	var callWaits []time.Duration // waits of the current call, for growth
	var callRA []bool
	for i, r := range reqs {
		if r.Attempt < 1 {
			return fmt.Errorf("request %d has attempt %d", i+1, r.Attempt)
		}
		if r.Attempt > 1 {
			prev := reqs[i-1]
			if r.Attempt != prev.Attempt+1 || requestKey(r) != requestKey(prev) {
				return fmt.Errorf("request %d (attempt %d) is not a retry of request %d", i+1, r.Attempt, i)
			}
			failed := outcomeOf(i - 1)
			if failed.err == nil || !transient(failed.err.Category) {
				return fmt.Errorf("request %d retries request %d, whose outcome %v is not retryable", i+1, i, failed.err)
			}
			// Per-call cap: retries after the first attempt.
			if r.Attempt-1 > c.set.MaxRetries {
				return fmt.Errorf("request %d is attempt %d, over max_retries %d", i+1, r.Attempt, c.set.MaxRetries)
			}
			sessionRetries++
			if sessionRetries > c.set.SessionMaxRetries {
				return fmt.Errorf("request %d is retry %d of the session, over the session cap %d", i+1, sessionRetries, c.set.SessionMaxRetries)
			}
			// The wait before it.
			if waitIx >= len(clk.waits) {
				return fmt.Errorf("request %d is a retry but the kernel did not wait before it", i+1)
			}
			w := clk.waits[waitIx]
			waitIx++
			k := r.Attempt - 1
			nominal := c.set.Nominal(k)
			ra := time.Duration(failed.retryAfter) * time.Millisecond
			lo := max(time.Duration(retry.JitterMinRatio*float64(nominal)), ra)
			hi := max(nominal, ra)
			if w < lo-time.Nanosecond || w > hi {
				return fmt.Errorf("wait before request %d (retry %d) is %v, want %v..%v (nominal %v, retry-after %v)", i+1, k, w, lo, hi, nominal, ra)
			}
			callWaits = append(callWaits, w)
			callRA = append(callRA, failed.retryAfter > 0)
			// Growth: with factor ≥ 2 the equal-jitter ranges of
			// consecutive retries do not overlap.
			if j := len(callWaits) - 1; j > 0 && c.set.Factor >= 2 && !callRA[j] && !callRA[j-1] && callWaits[j] < callWaits[j-1] {
				return fmt.Errorf("waits shrank within one call: %v then %v before request %d", callWaits[j-1], callWaits[j], i+1)
			}
		} else {
			callWaits, callRA = nil, nil
		}
		// A failure is retried exactly when the category and both caps
		// allow it; otherwise the request is never sent again.
		o := outcomeOf(i)
		if o.err == nil {
			continue
		}
		mayRetry := transient(o.err.Category) && r.Attempt-1 < c.set.MaxRetries && sessionRetries < c.set.SessionMaxRetries
		retried := i+1 < len(reqs) && reqs[i+1].Attempt == r.Attempt+1
		if mayRetry != retried {
			return fmt.Errorf("request %d failed with %s (attempt %d, %d session retries): retried=%v, want %v", i+1, o.err.Category, r.Attempt, sessionRetries, retried, mayRetry)
		}
		if !mayRetry {
			for j := i + 1; j < len(reqs); j++ {
				if requestKey(reqs[j]) == requestKey(r) {
					return fmt.Errorf("request %d (%s) was sent again as request %d", i+1, o.err.Category, j+1)
				}
			}
			if i != len(reqs)-1 || res.Status != wire.StatusFailed {
				return fmt.Errorf("request %d failed for good with %s, yet the session went on (%d requests, status %s)", i+1, o.err.Category, len(reqs), res.Status)
			}
		}
	}
	if waitIx != len(clk.waits) {
		return fmt.Errorf("%d waits for %d retries: %v", len(clk.waits), waitIx, clk.waits)
	}
	if last := outcomeOf(len(reqs) - 1); last.err == nil && res.Status != wire.StatusCompleted {
		return fmt.Errorf("the last request succeeded, the session ended %s (%s)", res.Status, res.Error)
	}
	return nil
}

func TestModelErrorRecoveryProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := caseGen.Draw(t, "case")
		if err := checkRetryCase(c, Parts{}); err != nil {
			t.Fatalf("%v\n%s", err, c.describ)
		}
	})
}

// The property checker must itself be able to fail: each broken policy
// below breaks one invariant and is caught on some of 400 fixed examples.
func TestModelErrorPropertiesCatchBrokenPolicies(t *testing.T) {
	for name, p := range map[string]retry.Policy{
		"retries auth_error":        broken{mod: func(e *wire.ModelError, _ *retry.State) { retagAuth(e) }},
		"ignores retry-after":       broken{mod: func(e *wire.ModelError, _ *retry.State) { e.RetryAfterMS = nil }},
		"ignores the session cap":   broken{mod: func(_ *wire.ModelError, s *retry.State) { s.SessionRetries = 0 }},
		"ignores the per-call cap":  broken{mod: func(_ *wire.ModelError, s *retry.State) { s.Attempt = 1 }},
		"waits the base every time": broken{after: func(cfg *wire.Retry, d *retry.Decision) { d.Delay = retry.Resolve(cfg).Base }},
		"never waits":               broken{after: func(_ *wire.Retry, d *retry.Decision) { d.Delay = 0 }},
	} {
		caught := false
		for seed := 0; seed < 400 && !caught; seed++ {
			caught = checkRetryCase(caseGen.Example(seed), Parts{Retry: p}) != nil
		}
		if !caught {
			t.Errorf("the property checker missed a policy that %s", name)
		}
	}
}

func retagAuth(e *wire.ModelError) {
	if e.Category == wire.ModelErrAuth {
		e.Category = wire.ModelErrRateLimited
	}
}

// broken is the reference policy with its input or its decision altered.
type broken struct {
	retry.Backoff
	mod   func(*wire.ModelError, *retry.State)
	after func(*wire.Retry, *retry.Decision)
}

func (b broken) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	if b.mod != nil {
		b.mod(&e, &s)
	}
	d := retry.Backoff{}.Decide(cfg, e, s)
	if b.after != nil && d.Action == retry.Retry {
		b.after(cfg, &d)
	}
	return d
}
