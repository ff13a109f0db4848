package steps

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// Setup steps: they build the session config and script the fakes.

func (s *Scenario) declareTool(kind, name, provider, concurrency, keys string) error {
	risk := "read_only"
	if kind == wire.KindResource {
		risk = "moderate"
	}
	t := wire.ToolSchema{
		Provider: provider, Name: name, Kind: kind, Risk: risk,
		Description: fmt.Sprintf("fake %s %s of provider %s", kind, name, provider),
		InputSchema: map[string]any{"type": "object"},
	}
	switch {
	case strings.Contains(concurrency, "safe with no key fields"):
		t.Concurrency = &wire.ConcurrencySpec{Safe: true}
	case strings.Contains(concurrency, "safe with key fields"):
		t.Concurrency = &wire.ConcurrencySpec{Safe: true, KeyFields: strings.Split(keys, ",")}
	case strings.Contains(concurrency, "unsafe"):
		t.Concurrency = &wire.ConcurrencySpec{Safe: false}
	}
	for _, old := range s.Cfg.Tools {
		if old.Name == name {
			return fmt.Errorf("tool %q is declared twice", name)
		}
	}
	s.Cfg.Tools = append(s.Cfg.Tools, t)
	return nil
}

// policyRuleOfProvider is a rule naming both a tool and a provider: it
// matches that provider's calls to the tool only (PA-01).
func (s *Scenario) policyRuleOfProvider(name, verb, tool, provider string) error {
	if err := s.policyRule(name, verb, tool); err != nil {
		return err
	}
	s.Cfg.Policy.Rules[len(s.Cfg.Policy.Rules)-1].Provider = provider
	return nil
}

func (s *Scenario) policyRule(name, verb, tool string) error {
	d := map[string]string{"allows": wire.PolicyAllow, "asks for": wire.PolicyAsk, "denies": wire.PolicyDeny}[verb]
	s.Cfg.Policy.Rules = append(s.Cfg.Policy.Rules, wire.PolicyRule{Name: name, Tool: tool, Decision: d})
	return nil
}

// subscriberAtEveryPoint declares one subscriber per generic hook point
// (context-assemble goes through the context provider, not hook/dispatch).
func (s *Scenario) subscriberAtEveryPoint(mode, id string) error {
	for _, p := range wire.HookPoints {
		if p == wire.PointContextAssemble {
			continue
		}
		s.Cfg.Hooks.Subscribers = append(s.Cfg.Hooks.Subscribers, wire.Subscriber{ID: id, Point: p, Mode: mode})
	}
	return nil
}

func (s *Scenario) subscriberAt(mode, id, point string) error {
	s.Cfg.Hooks.Subscribers = append(s.Cfg.Hooks.Subscribers, wire.Subscriber{ID: id, Point: point, Mode: mode})
	return nil
}

func (s *Scenario) maxTurns(n int) error {
	s.Cfg.Bounds.MaxTurns = &n
	return nil
}

func (s *Scenario) looseOtherBounds(usd, secs string) error {
	c, err := strconv.ParseFloat(usd, 64)
	if err != nil {
		return err
	}
	w, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return err
	}
	s.Cfg.Bounds.MaxCostUSD, s.Cfg.Bounds.MaxWallClockS = &c, &w
	return nil
}

func (s *Scenario) answerCalls(nth, calls string) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	cs, err := parseCalls(calls)
	if err != nil {
		return err
	}
	s.World.Model.On(n, fakes.Reply{Calls: cs})
	return nil
}

func (s *Scenario) answerText(nth, text string) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	s.World.Model.On(n, fakes.Reply{Text: text})
	return nil
}

// answerEveryCallVarying keeps the doom-loop detector quiet: the argument
// changes with every request.
func (s *Scenario) answerEveryCallVarying(tool, field string) error {
	s.World.Model.Every(fakes.Reply{CallsFn: func(n int) []fakes.Call {
		in, _ := parseArgs(fmt.Sprintf(`%s "value-%d"`, field, n))
		return []fakes.Call{{Name: tool, Input: in}}
	}})
	return nil
}

func (s *Scenario) hangAndCancel(nth string) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	s.World.Model.On(n, fakes.Reply{Hang: true})
	s.cancelOnHang = n
	s.cancelledWhen = fmt.Sprintf("while its model request %d hung", n)
	return nil
}

// cancelWithAnswer cancels the session in the same write as the first
// answer of a tool (driver.Kernel.CancelWithNext): the kernel reads both
// at once, so the cancel lands when the session has no call in flight,
// the moment a loop that only abandons what is in flight gets wrong. Model
// request n, if the kernel still sends it, is answered with text only once
// the kernel has answered the cancel: a kernel that takes the cancel goes
// no further, whether it read the cancel before or after it sent n.
func (s *Scenario) cancelWithAnswer(tool, nth, text string) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	answered := make(chan struct{})
	// A kernel that reaches request n without the tool's answer (it never
	// invoked the tool) was never cancelled: nothing to wait for.
	after := func() <-chan struct{} {
		if !s.cancelSent.Load() {
			return nil
		}
		return answered
	}
	s.World.Model.On(n, fakes.Reply{Text: text, After: after})
	s.cancelledWhen = fmt.Sprintf("in the same write as its first answer of %q", tool)
	s.onRun = append(s.onRun, func(k *driver.Kernel) {
		var once sync.Once
		s.World.Tools.Update(tool, func(b *fakes.ToolBehavior) {
			b.Respond = func(p wire.ToolInvokeParams) (*wire.ToolInvokeResult, error) {
				if p.CallContext.SessionID != s.SessionID {
					return nil, nil
				}
				once.Do(func() {
					wait, err := k.CancelWithNext(s.SessionID)
					if err != nil {
						close(answered)
						return
					}
					s.cancelSent.Store(true)
					go func() {
						defer close(answered)
						ctx, cancel := context.WithTimeout(context.Background(), s.env.Scale(s.env.ScenarioTimeout))
						defer cancel()
						_ = wait(ctx)
					}()
				})
				return nil, nil // the tool's usual answer, the cancel riding on it
			}
		})
	})
	return nil
}

func (s *Scenario) telemetry(onoff string) error {
	s.Cfg.Telemetry = onoff == "on"
	return nil
}

func (s *Scenario) sessionRuns(ctx context.Context) error { return s.run(ctx) }
