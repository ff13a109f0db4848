package steps

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// The plan/apply gate and the precheck of reads and interactive calls
// (PA-01 … PA-19). Decisions are observed where the protocol shows them:
// plan_item events (the plan_items rows), frontend/permission requests,
// tool/preview and tool/invoke requests, error and ask_downgrade events,
// and the tool_result blocks of the next model request.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		p := &planArea{s: s}
		// Setup.
		sc.Step(stepRE(`^a policy rule "([^"]+)" that (allows|asks for|denies) the tools of provider "([^"]+)"$`), p.providerRule)
		sc.Step(stepRE(`^a policy rule "([^"]+)" that denies every call$`), p.denyAll)
		sc.Step(stepRE(`^a policy rule "([^"]+)" that (allows|asks for|denies) every (resource|data_source|interactive) call$`), p.kindRule)
		sc.Step(stepRE(`^the frontend (first |then )?answers permission for "([^"]+)" with (ALLOW|DENY)(?: and scope (ONCE|SESSION|ALWAYS))?(?: after (\d+) ms)?$`), p.answer)
		sc.Step(stepRE(`^the frontend (first |then )?answers permission for "([^"]+)" with ALLOW and corrected input (.+)$`), p.answerCorrected)
		sc.Step(stepRE(`^the interactive tool "([^"]+)" is answered with "([^"]*)"$`), p.interactiveAnswer)
		sc.Step(stepRE(`^the tool "([^"]+)" requires a string "([^"]+)"$`), p.requiresString)
		sc.Step(stepRE(`^the tool "([^"]+)" offers a preview(?: that (fails|hangs|is not implemented))?$`), p.preview)
		sc.Step(stepRE(`^the tool "([^"]+)" has risk "([^"]+)" and description "([^"]*)"$`), p.riskAndDescription)
		sc.Step(stepRE(`^plan mode is on$`), p.planMode)
		sc.Step(stepRE(`^the circuit breaker trips after (\d+) denials in a row$`), p.breakerConsecutive)
		sc.Step(stepRE(`^the circuit breaker trips after (\d+) denials among the last (\d+) decisions$`), p.breakerWindow)
		sc.Step(stepRE(`^the kernel has a writable policy store$`), p.persistAlways)
		sc.Step(stepRE(`^the session uses a profile of its own$`), p.ownProfile)
		sc.Step(stepRE(`^a second session runs under the same profile$`), p.secondSession)

		// Checks.
		sc.Step(stepRE(`^the frontend was asked about "([^"]+)" (\d+) times?$`), s.proves(func(tool string, n int) error {
			return p.askedTimes(s.SessionID, tool, n)
		}, "PA-01", "PA-08", "PA-10", "PA-18", "PA-19"))
		sc.Step(stepRE(`^the second session asked the frontend about "([^"]+)" (\d+) times?$`), s.proves(func(tool string, n int) error {
			return p.askedTimes(p.second, tool, n)
		}, "PA-18", "PA-19"))
		sc.Step(stepRE(`^the tool "([^"]+)" was invoked (\d+) times? in the second session$`), s.proves(func(tool string, n int) error {
			return s.invokedTimes(p.second, tool, n)
		}, "PA-18", "PA-19"))
		sc.Step(stepRE(`^the frontend was never asked about (.+)$`), s.proves(p.neverAsked, "PA-01", "PA-10"))
		sc.Step(stepRE(`^the frontend was asked about every call to "([^"]+)"$`), s.proves(p.askedAboutEveryCall, "PA-19"))
		sc.Step(stepRE(`^the frontend received no permission request$`), s.proves(func() error { return p.noRequest(wire.MethodFrontendPermission) }, "PA-06", "PA-15"))
		sc.Step(stepRE(`^the frontend received no interactive request$`), s.proves(func() error { return p.noRequest(wire.MethodFrontendInteractive) }, "PA-06"))
		sc.Step(stepRE(`^the frontend was asked about "([^"]+)" and "([^"]+)" in one permission request$`), s.proves(p.batched, "PA-02"))
		sc.Step(stepRE(`^turn (\d+) wrote one plan_item row per resource call before asking about or applying any of them$`), s.proves(p.planRows, "PA-14"))
		sc.Step(stepRE(`^the plan_item rows of turn (\d+) record these decisions:$`), s.proves(p.planDecisions, "PA-01", "PA-14"))
		sc.Step(stepRE(`^the plan_item rows of turn (\d+) name a different decider each$`), s.proves(p.distinctDeciders, "PA-01"))
		sc.Step(stepRE(`^every call to "([^"]+)" has a plan_item row$`), s.proves(p.everyCallHasRow, "PA-18"))
		sc.Step(stepRE(`^model request (\d+) holds a denial for the call to "([^"]+)"$`), s.proves(p.denialResult, "PA-01", "PA-02", "PA-06", "PA-08", "PA-09", "PA-16"))
		sc.Step(stepRE(`^model request (\d+) holds a denial with a reason for the call to "([^"]+)"$`), s.proves(p.denialWithReason, "PA-03"))
		sc.Step(stepRE(`^model request (\d+) holds an ordinary result for the call to "([^"]+)"$`), s.proves(p.ordinaryResult, "PA-01", "PA-08", "PA-16", "PA-17"))
		sc.Step(stepRE(`^model request (\d+) holds "([^"]*)" as the result of the call to "([^"]+)"$`), s.proves(p.resultText, "PA-15", "PA-16"))
		sc.Step(stepRE(`^model request (\d+) offered no resource tool$`), s.proves(p.noResourceSpecs, "PA-04"))
		sc.Step(stepRE(`^the kernel reported the "([^"]+)" call as a downgraded ask and the "([^"]+)" call as a plain deny$`), s.proves(p.downgradeMarked, "PA-09"))
		sc.Step(stepRE(`^no preview was requested or stored for (.+)$`), s.proves(p.noPreviewFor, "PA-11"))
		sc.Step(stepRE(`^the permission request for "([^"]+)" carried no preview but the call's input$`), s.proves(p.noPreviewButInput, "PA-12"))
		sc.Step(stepRE(`^the permission request for "([^"]+)" did not wait past the kernel's preview deadline$`), s.proves(p.previewDeadline, "PA-12"))
		sc.Step(stepRE(`^the kernel reported no error event$`), s.proves(p.noErrorEvent, "PA-12"))
		sc.Step(stepRE(`^the permission request for "([^"]+)" carried the kind, risk, description and preview the tool gave at plan time$`), s.proves(p.snapshot, "PA-13"))
		sc.Step(stepRE(`^the kernel refused the (?:ALWAYS answer|corrected input) for "([^"]+)" with an error naming its plan item$`), s.proves(p.refusedWithError, "PA-17", "PA-19"))
		sc.Step(stepRE(`^the tool "([^"]+)" ran with input (.+)$`), s.proves(func(tool, args string) error { return p.ranWith(tool, args, true) }, "PA-17"))
		sc.Step(stepRE(`^the tool "([^"]+)" never ran with input (.+)$`), s.proves(func(tool, args string) error { return p.ranWith(tool, args, false) }, "PA-17"))
		sc.Step(stepRE(`^the interactive request for "([^"]+)" carried its call id, the tool name and a prompt$`), s.proves(p.interactiveFields, "PA-15"))
		sc.Step(stepRE(`^the tool "([^"]+)" was invoked only after the frontend had answered about it$`), s.proves(p.invokedAfterAnswer, "PA-08"))
		sc.Step(stepRE(`^the session ends with the kernel's circuit-breaker status$`), s.proves(p.breakerStatus, "ER-10", "PA-05"))

		// Observations: recorded, never judged.
		sc.Step(stepRE(`^the kernel's reaction to the forged call to "([^"]+)" is recorded$`), p.forgedCallReaction)
	})
}

type planArea struct {
	s      *Scenario
	second string // the second session's id, once it ran
	later  laterAnswers
}

// Setup.

func policyDecision(verb string) string {
	return map[string]string{"allows": wire.PolicyAllow, "asks for": wire.PolicyAsk, "denies": wire.PolicyDeny}[verb]
}

func (p *planArea) providerRule(name, verb, provider string) error {
	p.s.Cfg.Policy.Rules = append(p.s.Cfg.Policy.Rules, wire.PolicyRule{Name: name, Provider: provider, Decision: policyDecision(verb)})
	return nil
}

// kindRule is a rule naming a call kind only: it matches no call of
// another kind (PA-10's "no matching rule" side for those).
func (p *planArea) kindRule(name, verb, kind string) error {
	p.s.Cfg.Policy.Rules = append(p.s.Cfg.Policy.Rules, wire.PolicyRule{Name: name, Kind: kind, Decision: policyDecision(verb)})
	return nil
}

func (p *planArea) denyAll(name string) error {
	p.s.Cfg.Policy.Rules = append(p.s.Cfg.Policy.Rules, wire.PolicyRule{Name: name, Decision: wire.PolicyDeny})
	return nil
}

func (p *planArea) answer(when, tool, decision, scope, after string) error {
	perm := fakes.Permission{Decision: decision, Scope: scope}
	if after != "" {
		ms, err := strconv.Atoi(after)
		if err != nil {
			return err
		}
		perm.Hold = p.s.env.Scale(time.Duration(ms) * time.Millisecond)
	}
	p.addAnswer(when, tool, perm)
	return nil
}

func (p *planArea) answerCorrected(when, tool, args string) error {
	in, err := parseArgs(args)
	if err != nil {
		return err
	}
	p.addAnswer(when, tool, fakes.Permission{Decision: wire.DecisionAllow, Scope: wire.ScopeOnce, CorrectedInput: in})
	return nil
}

func (p *planArea) interactiveAnswer(tool, answer string) error {
	p.s.World.Frontend.SetAnswer(tool, answer)
	return nil
}

func (p *planArea) tool(name string) (*wire.ToolSchema, error) {
	for i := range p.s.Cfg.Tools {
		if p.s.Cfg.Tools[i].Name == name {
			return &p.s.Cfg.Tools[i], nil
		}
	}
	return nil, scenarioDefect("the scenario declares no tool %q (declare it first)", name)
}

func (p *planArea) requiresString(name, field string) error {
	t, err := p.tool(name)
	if err != nil {
		return err
	}
	t.InputSchema = map[string]any{
		"type":       "object",
		"properties": map[string]any{field: map[string]any{"type": "string"}},
		"required":   []any{field},
	}
	return nil
}

func (p *planArea) preview(name, how string) error {
	t, err := p.tool(name)
	if err != nil {
		return err
	}
	t.HasPreview = true
	mode := map[string]fakes.PreviewMode{"": fakes.PreviewOK, "fails": fakes.PreviewFail, "hangs": fakes.PreviewHang, "is not implemented": fakes.PreviewNone}[how]
	var limit time.Duration
	if mode == fakes.PreviewHang {
		// Past the deadline and its slack the hanging preview answers, so a
		// kernel that never gives up gets a verdict, not a hung scenario.
		d, err := p.previewDeadlineOf()
		if err != nil {
			d = undeclaredPreviewDeadline
		}
		limit = d + p.previewSlack(d) + p.s.env.Scale(time.Second)
	}
	p.s.World.Tools.Update(name, func(b *fakes.ToolBehavior) { b.Preview, b.PreviewLimit = mode, limit })
	return nil
}

func (p *planArea) riskAndDescription(name, risk, desc string) error {
	t, err := p.tool(name)
	if err != nil {
		return err
	}
	t.Risk, t.Description = risk, desc
	return nil
}

func (p *planArea) planMode() error {
	p.s.Cfg.PlanMode = true
	return nil
}

func (p *planArea) breakerConsecutive(n int) error {
	p.s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Consecutive: n}
	return nil
}

func (p *planArea) breakerWindow(m, window int) error {
	// A consecutive threshold the scenario never reaches, so that only the
	// window can trip.
	p.s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Consecutive: 1000, Window: window, WindowMax: m}
	return nil
}

func (p *planArea) persistAlways() error {
	p.s.Cfg.Policy.PersistAlways = true
	return nil
}

// ownProfile keeps an ALWAYS answer stored by this scenario away from every
// other scenario that the same kernel process serves.
func (p *planArea) ownProfile() error {
	p.s.Cfg.Profile = "conform-" + p.s.SessionID
	return nil
}

// secondSession runs one more root session with the same config on the same
// kernel, after the first one ended.
func (p *planArea) secondSession(ctx context.Context) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if s.kernel == nil {
		return errors.New("the first session left no kernel to run a second one on")
	}
	id := s.SessionID + "-second"
	_, err := s.kernel.Run(ctx, s.World, wire.RunParams{SessionID: id, Prompt: s.Prompt, Config: s.Cfg}, s.env.ScenarioTimeout)
	var rej *driver.ConfigRejected
	switch {
	case errors.As(err, &rej):
		return fmt.Errorf("the kernel rejected the second session's config: %s", rej.Message)
	case err != nil:
		s.Fault = err
		return err
	}
	if pr := s.World.Problems(); len(pr) > 0 {
		s.Fault = &driver.Fault{What: strings.Join(pr, "; ")}
		return s.Fault
	}
	p.second = id
	return nil
}

// Views.
