package steps

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// The crash circuit breaker in detail (ER-10). What the breaker counts of
// crashes is open, so these checks follow the kernel's declared
// reading errors.crash_breaker.count (PROTOCOL.md §15). Only the value
// per_provider_in_a_row has a meaning the checks can hold a kernel to:
// each provider's crashes are counted in a row, an answered call of that
// provider (a success, a tool error, or an output its output_schema
// rejects) sets its count back to 0, crashes of other providers leave it
// alone, and the breaker trips at the end of the turn in which one
// provider's count reaches the threshold: the consecutive tier, or
// window_max when consecutive is 0; a tier at 0 is off, both at 0 never
// trip. A kernel that declares another reading, or none, is held to the
// plain ER-10 scenario only; these checks are not reached for it.

const readingCrashCount = "errors.crash_breaker.count"

// crashCountInARow is the one value of the reading the checks follow.
const crashCountInARow = "per_provider_in_a_row"

// toolScript answers a tool's calls by the value of one input field: a
// crash, or an output that breaks the tool's output_schema.
type toolScript struct {
	mu    sync.Mutex
	field string
	rules []scriptRule
}

type scriptRule struct {
	prefix string
	crash  bool
}

// brokenOutput breaks brokenOutputSchema, which the fake tool's default
// output ({"ok": true, ...}) meets.
var (
	brokenOutput       = json.RawMessage(`{"broken":true}`)
	brokenOutputSchema = map[string]any{"type": "object", "required": []any{"ok"}}
)

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		scripts := map[string]*toolScript{}
		script := func(tool, field string) (*toolScript, error) {
			if _, err := s.tool(tool); err != nil {
				return nil, err
			}
			ts := scripts[tool]
			if ts == nil {
				ts = &toolScript{field: field}
				scripts[tool] = ts
				s.World.Tools.Update(tool, func(b *fakes.ToolBehavior) { b.Respond = ts.respond })
			}
			if ts.field != field {
				return nil, fmt.Errorf("the tool %q is already scripted by its %s, not its %s", tool, ts.field, field)
			}
			return ts, nil
		}
		sc.Step(stepRE(`^the tool "([^"]+)" crashes on calls whose (\w+) starts with "([^"]+)"$`), func(tool, field, prefix string) error {
			ts, err := script(tool, field)
			if err != nil {
				return err
			}
			ts.add(scriptRule{prefix: prefix, crash: true})
			return nil
		})
		sc.Step(stepRE(`^the tool "([^"]+)" answers an output that breaks its output_schema on calls whose (\w+) starts with "([^"]+)"$`), func(tool, field, prefix string) error {
			ts, err := script(tool, field)
			if err != nil {
				return err
			}
			t, _ := s.tool(tool)
			t.OutputSchema = brokenOutputSchema
			ts.add(scriptRule{prefix: prefix})
			return nil
		})
		sc.Step(stepRE(`^the data_source tools ("[^"]+"(?:(?:, | and )"[^"]+")*), each from a provider of its own name, declared safe with no key fields$`), func(list string) error {
			for _, name := range quotedList(list) {
				if err := s.declareTool(wire.KindDataSource, name, name, "safe with no key fields", ""); err != nil {
					return err
				}
			}
			return nil
		})
		sc.Step(stepRE(`^the circuit breaker is set to trip after (\d+) crash(?:es)? in a row only$`), func(n int) error {
			s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Consecutive: n}
			return nil
		})
		sc.Step(stepRE(`^the circuit breaker is set to trip after (\d+) crashes among the last (\d+) decisions only$`), func(m, window int) error {
			s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Window: window, WindowMax: m}
			return nil
		})
		sc.Step(stepRE(`^the circuit breaker is set with both tiers off$`), func() error {
			s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{}
			return nil
		})
		sc.Step(stepRE(`^the circuit breaker tripped right after turn (\d+), naming provider "([^"]+)"$`), s.proves(s.breakerTrippedAfter, "ER-10"))
		sc.Step(stepRE(`^the circuit breaker never tripped$`), s.proves(s.breakerNeverTripped, "ER-10"))
	})
}

func (ts *toolScript) add(r scriptRule) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.rules = append(ts.rules, r)
}

func (ts *toolScript) respond(p wire.ToolInvokeParams) (*wire.ToolInvokeResult, error) {
	var in map[string]any
	_ = json.Unmarshal(p.Input, &in)
	v, _ := in[ts.field].(string)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, r := range ts.rules {
		if !strings.HasPrefix(v, r.prefix) {
			continue
		}
		if r.crash {
			return nil, fakes.CrashError("tool provider process exited during the call")
		}
		return &wire.ToolInvokeResult{Output: brokenOutput}, nil
	}
	return nil, nil
}

// crashCountReading says whether the kernel declares the reading these
// checks follow.
func (s *Scenario) crashCountReading() error {
	v, ok := s.env.Info.Readings[readingCrashCount]
	if !ok {
		return notReached("the kernel declares no %s reading: what its circuit breaker counts of crashes is open (A-33), so only the plain ER-10 scenario judges it", readingCrashCount)
	}
	if v != crashCountInARow {
		return notReached("the kernel declares %s=%q: the checks follow only %q (A-33 leaves the count open)", readingCrashCount, v, crashCountInARow)
	}
	return nil
}

// finalAnswerRequest is the number (from 1) of the first model request
// that offers no tools or is labelled final_answer: the limit path's extra
// turn. 0: none.
func (s *Scenario) finalAnswerRequest() int {
	for i, r := range s.modelRequests() {
		if r.Purpose == wire.PurposeLoopCheck {
			continue
		}
		if r.Purpose == wire.PurposeFinalAnswer || len(r.Tools) == 0 {
			return i + 1
		}
	}
	return 0
}

// crashBreakerEvents are the circuit_breaker events reporting crashes.
func (s *Scenario) crashBreakerEvents() []wire.Event {
	var out []wire.Event
	for _, e := range s.rootEvents() {
		if e.Kind == wire.EventCircuitBreaker && e.Payload["cause"] == "crashes" {
			out = append(out, e)
		}
	}
	return out
}

// ER-10 (reading per_provider_in_a_row): the breaker trips at the end of
// turn n, so request n+1 is the final-answer turn, and a circuit_breaker
// event, when the kernel sends one, names the provider.
func (s *Scenario) breakerTrippedAfter(n int, provider string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if err := s.crashCountReading(); err != nil {
		return err
	}
	got := s.finalAnswerRequest()
	switch {
	case got == 0:
		return fmt.Errorf("expected the circuit breaker to trip at the end of turn %d (%s=%s: provider %q reached the threshold in a row there), it never tripped: all %d model requests offered tools and the session ended %q",
			n, readingCrashCount, crashCountInARow, provider, len(s.modelRequests()), s.Result.Status)
	case got != n+1:
		return fmt.Errorf("expected the circuit breaker to trip at the end of turn %d (%s=%s: provider %q reached the threshold in a row there), so that model request %d is the final-answer turn; the final-answer turn was model request %d",
			n, readingCrashCount, crashCountInARow, provider, n+1, got)
	}
	for _, e := range s.crashBreakerEvents() {
		if p, _ := e.Payload["provider"].(string); p != provider {
			return fmt.Errorf("expected the circuit_breaker event to name provider %q, whose crashes tripped it; it names %q", provider, p)
		}
	}
	return nil
}

// ER-10 (reading per_provider_in_a_row): no provider's crashes in a row
// reached the threshold, so the breaker never trips.
func (s *Scenario) breakerNeverTripped() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if err := s.crashCountReading(); err != nil {
		return err
	}
	if got := s.finalAnswerRequest(); got != 0 {
		return fmt.Errorf("expected the circuit breaker not to trip (%s=%s: no provider crashed often enough in a row), model request %d is a final-answer turn",
			readingCrashCount, crashCountInARow, got)
	}
	if evs := s.crashBreakerEvents(); len(evs) > 0 {
		return fmt.Errorf("expected the circuit breaker not to trip (%s=%s: no provider crashed often enough in a row), the kernel reported it tripped: %s",
			readingCrashCount, crashCountInARow, plain.JSON(evs[0].Payload))
	}
	return nil
}
