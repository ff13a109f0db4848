package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Error recovery (ER-01..ER-12): classified model errors, retries and their
// timing, context overflow, content filtering, tool crashes, tool retries
// and output_schema enforcement.
//
// Timing checks read the recorded arrival times only. The wait before a
// retry is measured from the moment the harness answered the failed
// request (calllog Entry.End) to the arrival of the retry (Entry.Start):
// the kernel can only start waiting once it has the error, so the measured
// wait is never shorter than the kernel's own. Lower bounds therefore hold
// on any machine, however loaded; upper bounds are kept generous.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		er := &erRetries{s: s} // the transient errors scripted (errors_ceiling.go)
		// Retry settings.
		sc.Step(stepRE(`^retry settings of base (\d+) ms, factor (\d+(?:\.\d+)?) and (\d+) retries per call$`), s.retrySettings)
		sc.Step(stepRE(`^a session-wide cap of (\d+) retries$`), s.sessionRetryCap)
		sc.Step(stepRE(`^a retry block that sets only (base_delay_ms|backoff_factor|max_retries)$`), s.partialRetryBlock)

		// The model's errors.
		sc.Step(stepRE(`^the model fails requests? (\d+)(?: to (\d+))? with "([a-z_]+)"(?: and a retry-after of (\d+) ms)?$`), er.modelFails)
		sc.Step(stepRE(`^the model fails every request with "([a-z_]+)"$`), er.modelFailsEvery)
		sc.Step(stepRE(`^the model fails request (\d+) with "([a-z_]+)" that the provider marks retryable$`), s.modelFailsMarkedRetryable)
		sc.Step(stepRE(`^the model fails every odd-numbered request with "([a-z_]+)" and answers every even-numbered one with a call to "([^"]+)" whose (\w+) changes each time$`), er.modelFailsOddRequests)
		sc.Step(stepRE(`^the model fails each of (\d+) calls (\d+) times? with "([a-z_]+)", answers each with a call to "([^"]+)" whose (\w+) changes each time, then with text "([^"]*)"$`), er.modelFailsEachCall)
		sc.Step(stepRE(`^the model answers request (\d+) with text "([^"]*)" and stop reason "([^"]+)"$`), s.answerTextStop)
		sc.Step(stepRE(`^the model config lists ("[^"]+"(?:(?:, | and )"[^"]+")*) as fallback models?$`), s.fallbackModels)

		// The context provider.
		sc.Step(stepRE(`^the context provider contributes the same text every turn and cannot shrink it$`), s.contextFixed)
		sc.Step(stepRE(`^the context provider contributes a long text every turn and a short one when asked to reduce$`), s.contextShrinkable)

		// Tools and the frontend.
		sc.Step(stepRE(`^the tool "([^"]+)" crashes on every call$`), s.toolCrashes)
		sc.Step(stepRE(`^the tool "([^"]+)" answers every call with a retryable "([a-z_]+)" error$`), s.toolRetryableError)
		sc.Step(stepRE(`^the tool "([^"]+)" declares this output schema:$`), s.toolOutputSchema)
		sc.Step(stepRE(`^the tool "([^"]+)" returns this output:$`), s.toolOutput)
		sc.Step(stepRE(`^the frontend fails every interactive request for "([^"]+)"$`), s.frontendFailsInteractive)
		sc.Step(stepRE(`^the circuit breaker is set to trip after (\d+) in a row or (\d+) among the last (\d+) decisions$`), s.breakerBothTiers)
		sc.Step(stepRE(`^an? (data_source|resource) tool "([^"]+)" from provider "([^"]+)" that the policy allows$`), s.allowedTool)

		// Checks. Each names only the requirement its assertion proves.
		sc.Step(stepRE(`^the kernel refuses the session config$`), s.proves(s.configRefused, "ER-05"))
		sc.Step(stepRE(`^model requests (\d+) to (\d+) are the same request with attempts counting up$`), s.proves(s.sameRequestRetried, "ER-01"))
		sc.Step(stepRE(`^model requests (\d+) to (\d+) were attempts of one call, counting up$`), s.proves(s.attemptsOfOneCall, "ER-02"))
		sc.Step(stepRE(`^the waits before model requests (\d+) to (\d+) follow a backoff from (\d+) ms growing by a factor of (\d+(?:\.\d+)?)$`), s.proves(s.backoffWaits, "ER-01", "ER-05"))
		sc.Step(stepRE(`^the waits of all (\d+) retries, taken together, follow a backoff from (\d+) ms growing by a factor of (\d+(?:\.\d+)?)$`), s.proves(s.backoffTogether, "ER-01", "ER-05"))
		sc.Step(stepRE(`^model request (\d+) came at least (\d+) ms after the answer to model request (\d+)$`), s.proves(s.retryAfterWait, "ER-01"))
		sc.Step(stepRE(`^no model request repeated failed model request (\d+)$`), s.proves(s.noRepeatOf, "ER-03"))
		sc.Step(stepRE(`^no model request repeated an earlier one$`), s.proves(s.noRepeats, "ER-06"))
		sc.Step(stepRE(`^a context pass asked to reduce came between model requests (\d+) and (\d+)$`), s.proves(s.reducePassBetween, "ER-06"))
		sc.Step(stepRE(`^model request (\d+) differs from model request (\d+)$`), s.proves(s.requestsDiffer, "ER-06"))
		sc.Step(stepRE(`^the model was asked fewer than (\d+) times$`), s.proves(s.modelAskedFewer, "ER-06", "ER-10"))
		sc.Step(stepRE(`^the last model request offered no tools$`), s.proves(s.lastRequestNoTools, "ER-10"))
		sc.Step(stepRE(`^no model request went to another model than the primary before the frontend was told of "([a-z_]+)"$`), s.proves(s.noSilentSwitch, "ER-07"))
		sc.Step(stepRE(`^the session ends with the kernel's model-error status$`), s.proves(s.modelErrorStatus, "ER-02", "ER-06"))
		sc.Step(stepRE(`^the kernel named "([a-z_]+)" as the cause, in an event or in the session result$`), s.proves(s.causeNamed, "ER-06"))
		sc.Step(stepRE(`^an event reported "([a-z_]+)"( with a message for a human)?$`), s.proves(s.eventReported, "ER-08"))
		sc.Step(stepRE(`^no event reported "([a-z_]+)"$`), s.proves(s.noEventReported, "ER-08"))
		sc.Step(stepRE(`^the post-model-response observer saw "([a-z_]+)" as the (stop reason|error category)$`), s.proves(s.observerSaw, "ER-08"))
		sc.Step(stepRE(`^the post-model-response observer never saw "([a-z_]+)"$`), s.proves(s.observerNeverSaw, "ER-08"))
		sc.Step(stepRE(`^model request (\d+) holds an error result for the call of request (\d+)$`), s.proves(func(n, from int) error {
			return s.resultFor(n, from, resultError)
		}, "ER-04", "ER-11", "ER-12"))
		sc.Step(stepRE(`^model request (\d+) holds the result of the call of request (\d+) as a success$`), s.proves(func(n, from int) error {
			return s.resultFor(n, from, resultSuccess)
		}, "ER-12"))
		sc.Step(stepRE(`^the error result for the call of request (\d+) is categorised "([a-z_]+)" wherever the kernel names a category$`), s.proves(s.resultCategory, "ER-09", "ER-11", "ER-12"))
		sc.Step(stepRE(`^the crashed call of request (\d+) was failed within (\d+) ms: by the next model request or by the end of the session$`), s.proves(s.crashFailedPromptly, "ER-09"))

		// Observations (recorded, never judged).
		sc.Step(stepRE(`^how the kernel reported "([a-z_]+)" and how the session ended are recorded$`), s.recordModelErrorReaction)
	})
}

// ---- setup ----

func (s *Scenario) retrySettings(base int, factor string, retries int) error {
	f, err := strconv.ParseFloat(factor, 64)
	if err != nil {
		return err
	}
	s.Cfg.Retry = &wire.Retry{BaseDelayMS: &base, BackoffFactor: &f, MaxRetries: &retries}
	return nil
}

func (s *Scenario) sessionRetryCap(n int) error {
	if s.Cfg.Retry == nil {
		return fmt.Errorf("a session-wide cap needs the retry settings first (a retry block must set all three base settings)")
	}
	s.Cfg.Retry.SessionMaxRetries = &n
	return nil
}

func (s *Scenario) partialRetryBlock(attr string) error {
	base, factor, retries := 40, 2.0, 3
	r := &wire.Retry{}
	switch attr {
	case "base_delay_ms":
		r.BaseDelayMS = &base
	case "backoff_factor":
		r.BackoffFactor = &factor
	case "max_retries":
		r.MaxRetries = &retries
	}
	s.Cfg.Retry = r
	return nil
}

// modelError is the error the fake model sends for a category; only the
// transient categories are marked retryable, as a provider would.
func modelError(category string, retryAfterMS *int64) (*wire.ModelError, error) {
	switch category {
	case wire.ModelErrContextLength, wire.ModelErrRateLimited, wire.ModelErrOverloaded, wire.ModelErrAuth,
		wire.ModelErrInvalidRequest, wire.ModelErrContentFiltered, wire.ModelErrUnknown:
	default:
		return nil, fmt.Errorf("unknown model error category %q", category)
	}
	return &wire.ModelError{
		Category:     category,
		Message:      "fake model error: " + strings.ReplaceAll(category, "_", " "),
		Retryable:    category == wire.ModelErrRateLimited || category == wire.ModelErrOverloaded,
		RetryAfterMS: retryAfterMS,
	}, nil
}

// modelFailsMarkedRetryable scripts a permanent error whose provider
// says a retry is sensible (retryable: true): the other side of ER-03's
// condition, since the category, not the provider's hint, decides (PROTOCOL.md
// §13, "It retries, reduces context or fails according to the category").
func (s *Scenario) modelFailsMarkedRetryable(n int, category string) error {
	if transient(category) {
		return fmt.Errorf("%s is retried whatever it is marked: the step is for the categories never retried", category)
	}
	me, err := modelError(category, nil)
	if err != nil {
		return err
	}
	me.Retryable = true
	s.World.Model.On(n, fakes.Reply{Error: me})
	return nil
}

func transient(category string) bool {
	return category == wire.ModelErrRateLimited || category == wire.ModelErrOverloaded
}

// requestRange reads a step's "requests N" or "requests N to M".
func requestRange(from, to string) (a, b int, err error) {
	if a, err = strconv.Atoi(from); err != nil {
		return 0, 0, err
	}
	b = a
	if to != "" {
		if b, err = strconv.Atoi(to); err != nil {
			return 0, 0, err
		}
	}
	return a, b, nil
}

func (r *erRetries) modelFails(from, to, category, retryAfter string) error {
	s := r.s
	a, b, err := requestRange(from, to)
	if err != nil {
		return err
	}
	var ra *int64
	if retryAfter != "" {
		v, err := strconv.ParseInt(retryAfter, 10, 64)
		if err != nil {
			return err
		}
		ra = &v
	}
	me, err := modelError(category, ra)
	if err != nil {
		return err
	}
	for n := a; n <= b; n++ {
		s.World.Model.On(n, fakes.Reply{Error: me})
	}
	if transient(category) {
		var wait time.Duration
		if ra != nil {
			wait = time.Duration(*ra) * time.Millisecond
		}
		r.expect(func() []retrySample { return retriesOf(1, min(b-a+1, s.retryPlan().maxRetries), wait) })
	}
	return nil
}

func (r *erRetries) modelFailsEvery(category string) error {
	s := r.s
	me, err := modelError(category, nil)
	if err != nil {
		return err
	}
	s.World.Model.Every(fakes.Reply{Error: me})
	if transient(category) {
		r.expect(func() []retrySample { return retriesOf(1, s.retryPlan().maxRetries, 0) })
	}
	return nil
}

// modelFailsOddRequests scripts every request up to the fake's cap: odd
// ones fail, even ones call the tool with an argument that changes each
// time (so the doom-loop detector stays quiet).
func (r *erRetries) modelFailsOddRequests(category, tool, field string) error {
	s := r.s
	me, err := modelError(category, nil)
	if err != nil {
		return err
	}
	for n := 1; n <= s.World.Model.Cap; n++ {
		if n%2 == 1 {
			s.World.Model.On(n, fakes.Reply{Error: me})
			continue
		}
		in, _ := parseArgs(fmt.Sprintf(`%s "value-%d"`, field, n))
		s.World.Model.On(n, fakes.Reply{Calls: []fakes.Call{{Name: tool, Input: in}}})
	}
	if transient(category) {
		r.expect(func() []retrySample {
			n := s.World.Model.Cap / 2
			if c := s.Cfg.Retry; c != nil && c.SessionMaxRetries != nil {
				n = min(n, *c.SessionMaxRetries)
			}
			return retriesOf(n, 1, 0)
		})
	}
	return nil
}

// modelFailsEachCall scripts calls model calls that each fail times times
// before their answer, a call to the tool with an argument that changes
// each time; the request after the last call answers with text. Many
// retries of the same rank make the waits, taken together, decide what
// few of them cannot (errors_backoff.go).
func (r *erRetries) modelFailsEachCall(calls, times int, category, tool, field, text string) error {
	s := r.s
	me, err := modelError(category, nil)
	if err != nil {
		return err
	}
	if calls < 1 || times < 1 {
		return fmt.Errorf("each of %d calls failing %d times scripts nothing", calls, times)
	}
	n := 1
	for c := 1; c <= calls; c++ {
		for range times {
			s.World.Model.On(n, fakes.Reply{Error: me})
			n++
		}
		in, _ := parseArgs(fmt.Sprintf(`%s "value-%d"`, field, c))
		s.World.Model.On(n, fakes.Reply{Calls: []fakes.Call{{Name: tool, Input: in}}})
		n++
	}
	s.World.Model.On(n, fakes.Reply{Text: text})
	if transient(category) {
		r.expect(func() []retrySample { return retriesOf(calls, min(times, s.retryPlan().maxRetries), 0) })
	}
	return nil
}

func (s *Scenario) answerTextStop(n int, text, stop string) error {
	s.World.Model.On(n, fakes.Reply{Text: text, StopReason: stop})
	return nil
}

func (s *Scenario) fallbackModels(list string) error {
	s.Cfg.Model.Fallbacks = append(s.Cfg.Model.Fallbacks, quotedList(list)...)
	return nil
}

// allowedTool declares a tool of either kind that runs without asking: a
// read declared safe with no key fields, or a resource a policy rule
// allows. Tool-error scenarios use it to cover every kind that is invoked.
func (s *Scenario) allowedTool(kind, name, provider string) error {
	conc := ""
	if kind == wire.KindDataSource {
		conc = "safe with no key fields"
	}
	if err := s.declareTool(kind, name, provider, conc, ""); err != nil {
		return err
	}
	if kind == wire.KindResource {
		return s.policyRule(name+"-ok", "allows", name)
	}
	return nil
}

func (s *Scenario) contextFixed() error {
	s.World.ContextText = func(int) string { return "Project notes: the same for every turn." }
	s.World.ReducedText = nil
	return nil
}

func (s *Scenario) contextShrinkable() error {
	long := "Project notes, in full: " + strings.Repeat("background detail; ", 200)
	s.World.ContextText = func(int) string { return long }
	s.World.ReducedText = func(int) string { return "Project notes, in brief." }
	return nil
}

func (s *Scenario) tool(name string) (*wire.ToolSchema, error) {
	for i := range s.Cfg.Tools {
		if s.Cfg.Tools[i].Name == name {
			return &s.Cfg.Tools[i], nil
		}
	}
	return nil, scenarioDefect("the scenario declares no tool %q (declare it first)", name)
}

func (s *Scenario) toolCrashes(name string) error {
	if _, err := s.tool(name); err != nil {
		return err
	}
	s.World.Tools.Set(name, fakes.ToolBehavior{Crash: true})
	return nil
}

func (s *Scenario) toolRetryableError(name, category string) error {
	if _, err := s.tool(name); err != nil {
		return err
	}
	out, _ := json.Marshal("temporarily unavailable, try again")
	s.World.Tools.Set(name, fakes.ToolBehavior{Output: out, IsError: true, Category: category, Retryable: true})
	return nil
}

func (s *Scenario) toolOutputSchema(name string, doc *godog.DocString) error {
	t, err := s.tool(name)
	if err != nil {
		return err
	}
	var sch map[string]any
	if err := json.Unmarshal([]byte(doc.Content), &sch); err != nil {
		return fmt.Errorf("the output schema is not a JSON object: %v", err)
	}
	t.OutputSchema = sch
	return nil
}

func (s *Scenario) toolOutput(name string, doc *godog.DocString) error {
	if _, err := s.tool(name); err != nil {
		return err
	}
	if !json.Valid([]byte(doc.Content)) {
		return fmt.Errorf("the output is not JSON: %s", doc.Content)
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, []byte(doc.Content))
	s.World.Tools.Set(name, fakes.ToolBehavior{Output: json.RawMessage(buf.Bytes())})
	return nil
}

func (s *Scenario) frontendFailsInteractive(tool string) error {
	if _, err := s.tool(tool); err != nil {
		return err
	}
	s.World.Frontend.SetInteractive(tool, fakes.Interactive{Fail: "the frontend is temporarily unavailable"})
	return nil
}

// breakerBothTiers sets both tiers of the breaker. What the breaker counts
// is open: whether an allowed call between two crashes resets the
// consecutive count. A kernel that counts crashes in a row trips on the
// first tier; one whose allows reset that count still sees the crashes
// within the window. Either way the breaker trips after a few crashes, which
// is the part every reading shares.
func (s *Scenario) breakerBothTiers(n, m, window int) error {
	s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Consecutive: n, Window: window, WindowMax: m}
	return nil
}

// ---- views ----

func (s *Scenario) modelEntry(n int) (calllog.Entry, error) {
	es := s.modelEntries()
	if n < 1 || n > len(es) {
		return calllog.Entry{}, notReached("there is no model request %d: the kernel sent %d", n, len(es))
	}
	return es[n-1], nil
}

// seen is what the model sees of a request: everything but the attempt
// number and the call context.
func seen(p wire.ModelStreamParams) string {
	p.Attempt = 0
	p.CallContext = wire.CallContext{}
	b, _ := json.Marshal(p)
	return string(b)
}
