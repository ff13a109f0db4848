package steps

import (
	"context"
	"strings"

	"github.com/cucumber/godog"
)

// Outcome is what a finished scenario hands to the runner.
type Outcome struct {
	Pickle *godog.Scenario
	State  *Scenario
	Err    error // the failing step's error, if any
}

// areaSteps holds the step registrations of each area's file (hooks.go,
// concurrency.go, ...); each file appends its own from init, so areas do
// not edit each other's code.
var areaSteps []func(s *Scenario, sc stepper)

// stepper is where the step library's definitions go: godog's scenario
// context when a feature file runs, a table of its own when a scenario given
// as lines runs without godog (lines.go).
type stepper interface {
	Step(expr, stepFunc any)
}

// Register binds the step library to one scenario. godog calls the
// initializer once per scenario, so every scenario gets fresh state.
func Register(sc *godog.ScenarioContext, env *Env, done func(Outcome)) {
	s := newScenario(env)
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		s.setTags(p)
		if ctx.Err() != nil || (env.Stop != nil && env.Stop.Err() != nil) {
			// The run was interrupted: start nothing new.
			s.NotRun = "the run was interrupted before this scenario started"
			return ctx, godog.ErrSkip
		}
		if reason := capabilitySkip(env, p); reason != "" {
			s.Skip = reason
			return ctx, godog.ErrSkip
		}
		return ctx, nil
	})
	sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
		s.step = st
		return ctx, nil
	})
	sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
		s.release()
		done(Outcome{Pickle: p, State: s, Err: err})
		return ctx, nil
	})
	define(s, sc)
}

// define binds every step of the library to the scenario s.
func define(s *Scenario, sc stepper) {
	// Tools, policy, hooks.
	sc.Step(stepRE(`^an? (data_source|resource|interactive) tool "([^"]+)" from provider "([^"]+)"( declared safe with no key fields| declared safe with key fields "([^"]*)"| declared unsafe)?$`),
		func(kind, name, provider, conc, keys string) error {
			return s.declareTool(kind, name, provider, conc, keys)
		})
	sc.Step(stepRE(`^a policy rule "([^"]+)" that (allows|asks for|denies) "([^"]+)"$`), s.policyRule)
	sc.Step(stepRE(`^a policy rule "([^"]+)" that (allows|asks for|denies) "([^"]+)" of provider "([^"]+)"$`), s.policyRuleOfProvider)
	sc.Step(stepRE(`^an? (observe|transform|veto) subscriber "([^"]+)" at every hook point$`), s.subscriberAtEveryPoint)
	sc.Step(stepRE(`^an? (observe|transform|veto) subscriber "([^"]+)" at "([^"]+)"$`), s.subscriberAt)
	sc.Step(stepRE(`^telemetry is (on|off)$`), s.telemetry)

	// Bounds.
	sc.Step(stepRE(`^the session allows at most (\d+) turns?$`), s.maxTurns)
	sc.Step(stepRE(`^the session also has a cost bound of \$(\S+) and a wall-clock bound of (\S+) seconds$`), s.looseOtherBounds)

	// The model's script.
	sc.Step(stepRE(`^the model answers request (\d+(?:st|nd|rd|th)?) with calls? (.+)$`), s.answerCalls)
	sc.Step(stepRE(`^the model answers request (\d+(?:st|nd|rd|th)?) with text "([^"]*)"$`), s.answerText)
	sc.Step(stepRE(`^the model answers every request with a call to "([^"]+)" whose (\w+) changes each time$`), s.answerEveryCallVarying)
	sc.Step(stepRE(`^the model hangs on request (\d+) and the harness cancels the session meanwhile$`), s.hangAndCancel)
	sc.Step(stepRE(`^the harness cancels the session in the same write as the first answer of "([^"]+)", and the model answers request (\d+) with text "([^"]*)" only once the kernel answered the cancel$`), s.cancelWithAnswer)

	sc.Step(stepRE(`^the session runs$`), s.sessionRuns)

	// Checks.
	sc.Step(stepRE(`^the session ends with status "([^"]+)"$`), s.proves(s.sessionEndsWith, "DF-01", "DF-02", "DF-03", "DF-04", "DF-05", "DF-06", "DF-07", "DF-08", "DF-09", "DF-10", "ER-01", "ER-04", "ER-06", "HD-01", "HD-02", "HD-04", "HD-05", "HD-06", "HD-07", "HD-08", "HD-09", "HD-10", "HD-11", "HD-12", "HD-13", "HD-14", "HD-16", "HD-17", "PA-03", "PA-04", "PA-12", "PA-16", "SA-01", "SA-03", "SA-08", "SA-11", "SA-14", "TA-09", "TA-10", "TA-11", "TA-26", "TA-27"))
	sc.Step(stepRE(`^the model was asked (\d+) times?$`), s.proves(s.modelAsked, "DF-01", "DF-06", "DF-07", "ER-01", "ER-02", "ER-05", "ER-06", "HD-09", "PA-05", "TA-09", "TA-10", "TA-11", "TA-27"))
	sc.Step(stepRE(`^model request (\d+) offered no tools$`), s.proves(s.requestOfferedNoTools, "PA-05"))
	sc.Step(stepRE(`^model request (\d+) carried an instruction the harness did not send$`), s.proves(s.requestCarriedInstruction, "PA-05"))
	sc.Step(stepRE(`^no tool ran after model request (\d+)$`), s.proves(s.noInvokeAfter, "PA-05"))
	sc.Step(stepRE(`^the requests of turn (\d+) arrived in this order:$`), s.proves(func(n string, t *godog.Table) error {
		var want []string
		for _, r := range t.Rows {
			want = append(want, strings.TrimSpace(r.Cells[0].Value))
		}
		return s.turnOrder(n, want)
	}, "TA-01"))
	sc.Step(stepRE(`^turn (\d+) started with "([^"]+)"$`), s.proves(s.turnStartsWith, "TA-01"))
	sc.Step(stepRE(`^model request (\d+) ends with the assistant message of request (\d+) followed by one result for each of its calls$`), s.proves(s.requestEndsWithResults, "TA-01"))
	sc.Step(stepRE(`^no (.+) hook was dispatched$`), s.proves(s.pointsNeverDispatched, "TA-10"))
	sc.Step(stepRE(`^"([^"]+)" was dispatched exactly once(, before the first context assemble|, after the last model request)?$`), s.proves(s.dispatchedOnce, "TA-10", "TA-18"))
	sc.Step(stepRE(`^the session-end payload carries the final status$`), s.proves(s.sessionEndPayloadStatus, "TA-18"))
	sc.Step(stepRE(`^the last session_meta row carries the final status$`), s.proves(s.lastMetaStatus, "TA-18"))
	sc.Step(stepRE(`^the session-end payload and the end row carry the final message "([^"]*)"$`), s.proves(s.endCarriesFinalMessage, "TA-18"))
	sc.Step(stepRE(`^the session_meta rows record one start: a single running row, and every row with its started_at and depth$`), s.proves(s.startRow, "TA-18"))
	sc.Step(stepRE(`^the final message says "([^"]*)"$`), s.proves(s.finalMessageSays, "DF-01", "TA-10", "TA-27"))

	// Trace (TA-17).
	sc.Step(stepRE(`^the trace has one turn span per turn$`), s.proves(s.turnSpanCount, "TA-17"))
	sc.Step(stepRE(`^every model request lies inside a model_call span within its turn span$`), s.proves(func() error {
		return s.coveredBy("model/stream", "model_call")
	}, "TA-17"))
	sc.Step(stepRE(`^every tool invoke lies inside a tool_execution span within its turn span$`), s.proves(func() error {
		return s.coveredBy("tool/invoke", "tool_execution")
	}, "TA-17"))
	sc.Step(stepRE(`^every interactive call lies inside a tool_execution span within its turn span$`), s.proves(func() error {
		return s.coveredBy("frontend/interactive", "tool_execution")
	}, "TA-17"))
	sc.Step(stepRE(`^a policy_chain span in each turn encloses that turn's plan decisions and ends before "([^"]+)" is applied$`), s.proves(s.policyChainBeforeApply, "TA-17"))

	for _, reg := range areaSteps {
		reg(s, sc)
	}
}
