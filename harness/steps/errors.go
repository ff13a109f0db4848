package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
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

// Generous upper bound of a retry wait: a loaded two-core machine must not
// flip a verdict.
const (
	waitSlackFactor = 20
	waitSlack       = 2 * time.Second
)

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc *godog.ScenarioContext) {
		// Retry settings.
		sc.Step(stepRE(`^retry settings of base (\d+) ms, factor (\d+(?:\.\d+)?) and (\d+) retries per call$`), s.retrySettings)
		sc.Step(stepRE(`^a session-wide cap of (\d+) retries$`), s.sessionRetryCap)
		sc.Step(stepRE(`^a retry block that sets only (base_delay_ms|backoff_factor|max_retries)$`), s.partialRetryBlock)

		// The model's errors.
		sc.Step(stepRE(`^the model fails requests? (\d+)(?: to (\d+))? with "([a-z_]+)"(?: and a retry-after of (\d+) ms)?$`), s.modelFails)
		sc.Step(stepRE(`^the model fails every request with "([a-z_]+)"$`), s.modelFailsEvery)
		sc.Step(stepRE(`^the model fails every odd-numbered request with "([a-z_]+)" and answers every even-numbered one with a call to "([^"]+)" whose (\w+) changes each time$`), s.modelFailsOddRequests)
		sc.Step(stepRE(`^the model answers request (\d+) with text "([^"]*)" and stop reason "([^"]+)"$`), s.answerTextStop)
		sc.Step(stepRE(`^the model config lists "([^"]+)" as a fallback model$`), s.fallbackModel)

		// The context provider.
		sc.Step(stepRE(`^the context provider contributes the same text every turn and cannot shrink it$`), s.contextFixed)
		sc.Step(stepRE(`^the context provider contributes a long text every turn and a short one when asked to reduce$`), s.contextShrinkable)

		// Tools and the frontend.
		sc.Step(stepRE(`^the tool "([^"]+)" crashes on every call$`), s.toolCrashes)
		sc.Step(stepRE(`^the tool "([^"]+)" answers every call with a retryable "([a-z_]+)" error$`), s.toolRetryableError)
		sc.Step(stepRE(`^the tool "([^"]+)" declares this output schema:$`), s.toolOutputSchema)
		sc.Step(stepRE(`^the tool "([^"]+)" returns this output:$`), s.toolOutput)
		sc.Step(stepRE(`^the frontend fails every interactive request for "([^"]+)"$`), s.frontendFailsInteractive)
		sc.Step(stepRE(`^the circuit breaker is set to trip after (\d+) in a row$`), s.breakerInARow)

		// Checks.
		sc.Step(stepRE(`^the kernel refuses the session config$`), s.configRefused)
		sc.Step(stepRE(`^model requests (\d+) to (\d+) are the same request with attempts counting up$`), s.sameRequestRetried)
		sc.Step(stepRE(`^the waits before model requests (\d+) to (\d+) follow a backoff from (\d+) ms growing by a factor of (\d+(?:\.\d+)?)$`), s.backoffWaits)
		sc.Step(stepRE(`^model request (\d+) came at least (\d+) ms after the answer to model request (\d+)$`), s.retryAfterWait)
		sc.Step(stepRE(`^no model request repeated failed model request (\d+)$`), s.noRepeatOf)
		sc.Step(stepRE(`^no model request repeated an earlier one$`), s.noRepeats)
		sc.Step(stepRE(`^a context pass asked to reduce came between model requests (\d+) and (\d+)$`), s.reducePassBetween)
		sc.Step(stepRE(`^model request (\d+) differs from model request (\d+)$`), s.requestsDiffer)
		sc.Step(stepRE(`^the model was asked fewer than (\d+) times$`), s.modelAskedFewer)
		sc.Step(stepRE(`^the last model request offered no tools$`), s.lastRequestNoTools)
		sc.Step(stepRE(`^no model request named the model "([^"]+)"$`), s.noRequestForModel)
		sc.Step(stepRE(`^the kernel named "([a-z_]+)" as the cause, in an event or in the session result$`), s.causeNamed)
		sc.Step(stepRE(`^an event reported "([a-z_]+)"( with a message for a human)?$`), s.eventReported)
		sc.Step(stepRE(`^no event reported "([a-z_]+)"$`), s.noEventReported)
		sc.Step(stepRE(`^the post-model-response observer saw "([a-z_]+)" as the (stop reason|error category)$`), s.observerSaw)
		sc.Step(stepRE(`^the post-model-response observer never saw "([a-z_]+)"$`), s.observerNeverSaw)
		sc.Step(stepRE(`^model request (\d+) holds an error result for the call of request (\d+)$`), func(n, from int) error {
			return s.resultFor(n, from, true)
		})
		sc.Step(stepRE(`^model request (\d+) holds the result of the call of request (\d+) as a success$`), func(n, from int) error {
			return s.resultFor(n, from, false)
		})
		sc.Step(stepRE(`^the error result for the call of request (\d+) is categorised "([a-z_]+)" wherever the kernel names a category$`), s.resultCategory)
		sc.Step(stepRE(`^model request (\d+) came within (\d+) ms of the answer to the call of request (\d+)$`), s.promptAfterCall)
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

func (s *Scenario) modelFails(from, to, category, retryAfter string) error {
	a, err := strconv.Atoi(from)
	if err != nil {
		return err
	}
	b := a
	if to != "" {
		if b, err = strconv.Atoi(to); err != nil {
			return err
		}
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
	return nil
}

func (s *Scenario) modelFailsEvery(category string) error {
	me, err := modelError(category, nil)
	if err != nil {
		return err
	}
	s.World.Model.Every(fakes.Reply{Error: me})
	return nil
}

// modelFailsOddRequests scripts every request up to the fake's cap: odd
// ones fail, even ones call the tool with an argument that changes each
// time (so the doom-loop detector stays quiet).
func (s *Scenario) modelFailsOddRequests(category, tool, field string) error {
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
	return nil
}

func (s *Scenario) answerTextStop(n int, text, stop string) error {
	s.World.Model.On(n, fakes.Reply{Text: text, StopReason: stop})
	return nil
}

func (s *Scenario) fallbackModel(name string) error {
	s.Cfg.Model.Fallbacks = append(s.Cfg.Model.Fallbacks, name)
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
	return nil, fmt.Errorf("the scenario declares no tool %q (declare it first)", name)
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

func (s *Scenario) breakerInARow(n int) error {
	s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Consecutive: n}
	return nil
}

// ---- views ----

// modelEntries are the root session's model/stream requests, in arrival
// order.
func (s *Scenario) modelEntries() []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.requests() {
		if e.Method == wire.MethodModelStream {
			out = append(out, e)
		}
	}
	return out
}

func (s *Scenario) modelEntry(n int) (calllog.Entry, error) {
	es := s.modelEntries()
	if n < 1 || n > len(es) {
		return calllog.Entry{}, fmt.Errorf("expected at least %d model requests, the kernel sent %d", n, len(es))
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

// readingFloat is a numeric reading of the kernel, or def when it
// declares none or an unreadable one.
func (s *Scenario) readingFloat(key string, def float64) float64 {
	v, ok := s.env.Info.Readings[key]
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || math.IsNaN(f) {
		return def
	}
	return f
}

// ---- checks ----

func (s *Scenario) configRefused() error {
	if !s.ran {
		return fmt.Errorf("step needs the session to have run (add \"When the session runs\")")
	}
	if s.Rejected == nil {
		return fmt.Errorf("expected the kernel to refuse the session config (error %d), it accepted it and the session ended %q",
			wire.CodeConfigRejected, s.Result.Status)
	}
	return nil
}

// ER-01: the retries are the failed request again, attempt by attempt.
func (s *Scenario) sameRequestRetried(a, b int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if b > len(rs) || a < 1 || a > b {
		return fmt.Errorf("expected model requests %d to %d, the kernel sent %d", a, b, len(rs))
	}
	first := seen(rs[a-1])
	for n := a + 1; n <= b; n++ {
		if got := seen(rs[n-1]); got != first {
			return fmt.Errorf("expected model request %d to repeat request %d unchanged (a retry), it differs:\nrequest %d: %s\nrequest %d: %s", n, a, a, first, n, got)
		}
		if rs[n-1].Attempt <= rs[n-2].Attempt {
			return fmt.Errorf("expected the attempt number to count up across retries, request %d has attempt %d after %d", n, rs[n-1].Attempt, rs[n-2].Attempt)
		}
	}
	return nil
}

// ER-01, ER-05: the wait before request k (the (k-a+1)-th retry) is at least
// the declared jitter floor of its nominal delay base·factor^(j−1), and not
// absurdly long. The floor is the reading retry.jitter_min_ratio (0 when
// undeclared): any jitter is acceptable, so only a kernel's own
// declaration makes a floor checkable. Since the nominal delays grow
// geometrically, the floors do too: a kernel that waits the base delay
// every time, or not at all, falls below them.
func (s *Scenario) backoffWaits(a, b, baseMS int, factor string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	f, err := strconv.ParseFloat(factor, 64)
	if err != nil {
		return err
	}
	if a < 2 || b < a {
		return fmt.Errorf("the waits are measured before retries: requests %d to %d make no sense", a, b)
	}
	es := s.modelEntries()
	if b > len(es) {
		return fmt.Errorf("expected at least %d model requests, the kernel sent %d", b, len(es))
	}
	ratio := s.readingFloat("retry.jitter_min_ratio", 0)
	var lines []string
	var bad []string
	for k := a; k <= b; k++ {
		prev, cur := es[k-2], es[k-1]
		if !prev.Answered() {
			return fmt.Errorf("model request %d was never answered, yet request %d followed", k-1, k)
		}
		wait := cur.Start.Sub(prev.End)
		nominal := time.Duration(float64(baseMS) * math.Pow(f, float64(k-a)) * float64(time.Millisecond))
		lo := time.Duration(ratio * float64(nominal))
		hi := waitSlackFactor*nominal + waitSlack
		lines = append(lines, fmt.Sprintf("before request %d: waited %v, nominal %v, allowed %v..%v", k, wait.Round(time.Millisecond/10), nominal, lo, hi))
		if wait < lo || wait > hi {
			bad = append(bad, fmt.Sprintf("request %d", k))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("expected each retry to wait at least %.2f× its nominal backoff delay (the kernel's declared retry.jitter_min_ratio; 0 if undeclared) and at most %d× nominal + %v; %s did not:\n%s",
			ratio, waitSlackFactor, waitSlack, strings.Join(bad, ", "), strings.Join(lines, "\n"))
	}
	return nil
}

// ER-01: a retry-after is a floor of its own, with no jitter excuse.
func (s *Scenario) retryAfterWait(n, ms, prevN int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	prev, err := s.modelEntry(prevN)
	if err != nil {
		return err
	}
	cur, err := s.modelEntry(n)
	if err != nil {
		return err
	}
	if !prev.Answered() {
		return fmt.Errorf("model request %d was never answered", prevN)
	}
	wait := cur.Start.Sub(prev.End)
	floor := time.Duration(ms) * time.Millisecond
	if wait < floor {
		return fmt.Errorf("expected model request %d at least %v after the error answer to request %d (its retry-after), it came after %v", n, floor, prevN, wait)
	}
	if limit := floor + waitSlackFactor*floor + waitSlack; wait > limit {
		return fmt.Errorf("expected model request %d within %v of the answer to request %d, it came after %v", n, limit, prevN, wait)
	}
	return nil
}

// ER-03: the failed request is never sent again unchanged.
func (s *Scenario) noRepeatOf(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if n < 1 || n > len(rs) {
		return fmt.Errorf("expected at least %d model requests, the kernel sent %d", n, len(rs))
	}
	failed := seen(rs[n-1])
	for i := n; i < len(rs); i++ {
		if seen(rs[i]) == failed {
			return fmt.Errorf("model request %d repeats the failed request %d unchanged (attempt %d); this error category must never be retried as it is", i+1, n, rs[i].Attempt)
		}
	}
	return nil
}

// ER-06: never a loop of the same failing request.
func (s *Scenario) noRepeats() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	first := map[string]int{}
	for i, r := range rs {
		k := seen(r)
		if j, ok := first[k]; ok {
			return fmt.Errorf("model request %d repeats request %d unchanged", i+1, j+1)
		}
		first[k] = i
	}
	return nil
}

// ER-06: a context pass with reduce: true between two model requests.
func (s *Scenario) reducePassBetween(a, b int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ea, err := s.modelEntry(a)
	if err != nil {
		return err
	}
	eb, err := s.modelEntry(b)
	if err != nil {
		return err
	}
	var passes []string
	for _, e := range s.requests() {
		if e.Seq <= ea.Seq || e.Seq >= eb.Seq {
			continue
		}
		if p, ok := e.Value.(wire.ContextAssembleParams); ok {
			if p.Reduce {
				return nil
			}
			passes = append(passes, fmt.Sprintf("#%d without reduce", e.Seq))
		}
	}
	got := "no context/assemble at all"
	if len(passes) > 0 {
		got = strings.Join(passes, ", ")
	}
	return fmt.Errorf("expected a context/assemble with reduce: true between model requests %d (#%d) and %d (#%d) after context_length_exceeded; saw %s", a, ea.Seq, b, eb.Seq, got)
}

func (s *Scenario) requestsDiffer(a, b int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if a > len(rs) || b > len(rs) {
		return fmt.Errorf("expected at least %d model requests, the kernel sent %d", max(a, b), len(rs))
	}
	if seen(rs[a-1]) == seen(rs[b-1]) {
		return fmt.Errorf("expected model request %d to differ from request %d, it is the same request again", a, b)
	}
	return nil
}

func (s *Scenario) modelAskedFewer(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if got := len(s.modelRequests()); got >= n {
		return fmt.Errorf("expected fewer than %d model requests, the kernel sent %d", n, got)
	}
	return nil
}

func (s *Scenario) lastRequestNoTools() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if len(rs) == 0 {
		return fmt.Errorf("the kernel sent no model request")
	}
	return s.requestOfferedNoTools(strconv.Itoa(len(rs)))
}

// ER-07: no request for a fallback model.
func (s *Scenario) noRequestForModel(model string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for i, r := range s.modelRequests() {
		if r.Model == model {
			return fmt.Errorf("model request %d went to %q; the kernel switched models after a non-retryable error", i+1, model)
		}
	}
	return nil
}

// eventNames reports whether an event names a condition: by its kind or by
// the category or stop_reason in its payload.
func eventNames(e wire.Event, what string) bool {
	if e.Kind == what {
		return true
	}
	for _, k := range []string{"category", "stop_reason", "error_category"} {
		if v, ok := e.Payload[k].(string); ok && v == what {
			return true
		}
	}
	if inner, ok := e.Payload["error"].(map[string]any); ok {
		if v, ok := inner["category"].(string); ok && v == what {
			return true
		}
	}
	return false
}

func (s *Scenario) rootEvents() []wire.Event {
	var out []wire.Event
	for _, e := range s.World.Events() {
		if e.SessionID == s.SessionID {
			out = append(out, e)
		}
	}
	return out
}

func eventKinds(es []wire.Event) string {
	var ks []string
	for _, e := range es {
		ks = append(ks, e.Kind)
	}
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}

// ER-06 / A-27: a clean failure names its cause.
func (s *Scenario) causeNamed(cause string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.rootEvents() {
		if eventNames(e, cause) {
			return nil
		}
	}
	if strings.Contains(s.Result.Error, cause) {
		return nil
	}
	return fmt.Errorf("expected an event (kind, or payload category) or the session result's error to name %q; events: %s; result error: %q",
		cause, eventKinds(s.rootEvents()), s.Result.Error)
}

// ER-07, ER-08: the condition reaches the frontend as an event of its own.
func (s *Scenario) eventReported(what, forHuman string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.rootEvents() {
		if !eventNames(e, what) {
			continue
		}
		if forHuman == "" {
			return nil
		}
		if m, ok := e.Payload["message"].(string); ok && strings.TrimSpace(m) != "" {
			return nil
		}
	}
	need := ""
	if forHuman != "" {
		need = " with a non-empty payload message"
	}
	return fmt.Errorf("expected an event naming %q (as its kind or its payload category or stop_reason)%s; the kernel reported: %s", what, need, eventKinds(s.rootEvents()))
}

func (s *Scenario) noEventReported(what string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.rootEvents() {
		if eventNames(e, what) {
			return fmt.Errorf("expected no event naming %q, the kernel reported a %q event that does: %v", what, e.Kind, e.Payload)
		}
	}
	return nil
}

// ER-08: what the post-model-response observers saw.
func (s *Scenario) postModelPayloads() []wire.HookPayload {
	var out []wire.HookPayload
	for _, e := range s.dispatchesAt(wire.PointPostModelResponse) {
		out = append(out, e.Value.(wire.HookDispatchParams).Payload)
	}
	return out
}

func describePayloads(ps []wire.HookPayload) string {
	if len(ps) == 0 {
		return "no post-model-response dispatch"
	}
	var out []string
	for _, p := range ps {
		cat := ""
		if p.Error != nil {
			cat = p.Error.Category
		}
		out = append(out, fmt.Sprintf("stop_reason %q, error category %q", p.StopReason, cat))
	}
	return strings.Join(out, "; ")
}

func (s *Scenario) observerSaw(what, field string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ps := s.postModelPayloads()
	for _, p := range ps {
		if field == "stop reason" && p.StopReason == what {
			return nil
		}
		if field == "error category" && p.Error != nil && p.Error.Category == what {
			return nil
		}
	}
	return fmt.Errorf("expected a post-model-response payload with %s %q; the observers saw: %s", field, what, describePayloads(ps))
}

func (s *Scenario) observerNeverSaw(what string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ps := s.postModelPayloads()
	for _, p := range ps {
		if p.StopReason == what || (p.Error != nil && p.Error.Category == what) {
			return fmt.Errorf("expected no post-model-response payload naming %q; the observers saw: %s", what, describePayloads(ps))
		}
	}
	return nil
}

// callOf is the id of the first tool call the fake model emitted in its
// answer to request n.
func (s *Scenario) callOf(n int) (string, error) {
	e, err := s.modelEntry(n)
	if err != nil {
		return "", err
	}
	var r wire.ModelStreamResult
	_ = json.Unmarshal(e.Result, &r)
	for _, ev := range r.Events {
		if ev.Type == wire.EventToolCall {
			return ev.ID, nil
		}
	}
	return "", fmt.Errorf("the answer to model request %d has no tool call", n)
}

// resultBlock is the tool_result for a call id in model request n.
func (s *Scenario) resultBlock(n int, id string) (wire.ContentBlock, error) {
	rs := s.modelRequests()
	if n < 1 || n > len(rs) {
		return wire.ContentBlock{}, fmt.Errorf("expected at least %d model requests (the session should go on after the call), the kernel sent %d (status %q, error %q)",
			n, len(rs), s.Result.Status, s.Result.Error)
	}
	for _, m := range rs[n-1].Messages {
		for _, c := range m.Content {
			if c.Type == wire.BlockToolResult && c.ToolUseID == id {
				return c, nil
			}
		}
	}
	return wire.ContentBlock{}, fmt.Errorf("model request %d holds no tool_result for call %s", n, id)
}

// ER-04, ER-09, ER-11, ER-12: the call's result as the model sees it.
func (s *Scenario) resultFor(n, from int, wantError bool) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	b, err := s.resultBlock(n, id)
	if err != nil {
		return err
	}
	if b.IsError != wantError {
		if wantError {
			return fmt.Errorf("expected the result of call %s in model request %d to be an error (is_error), the model was given it as a success: %q", id, n, b.Content)
		}
		return fmt.Errorf("expected the result of call %s in model request %d to be a success, it is an error (%s): %q", id, n, b.ErrorCategory, b.Content)
	}
	return nil
}

// ER-09, ER-12: the category, everywhere the kernel exposes one: the
// tool_result blocks, the post-tool-call payloads and tool_error-like
// events naming the call. At least one place must carry it.
func (s *Scenario) resultCategory(from int, category string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	var places, wrong []string
	note := func(where, got string) {
		if got == "" {
			return
		}
		places = append(places, where)
		if got != category {
			wrong = append(wrong, fmt.Sprintf("%s says %q", where, got))
		}
	}
	for i, r := range s.modelRequests() {
		for _, m := range r.Messages {
			for _, c := range m.Content {
				if c.Type == wire.BlockToolResult && c.ToolUseID == id {
					note(fmt.Sprintf("the tool_result in model request %d", i+1), c.ErrorCategory)
				}
			}
		}
	}
	for _, e := range s.dispatchesAt(wire.PointPostToolCall) {
		p := e.Value.(wire.HookDispatchParams).Payload
		if p.Call != nil && p.Call.ID == id && p.Result != nil {
			note(fmt.Sprintf("the post-tool-call payload (#%d)", e.Seq), p.Result.ErrorCategory)
		}
	}
	for _, e := range s.rootEvents() {
		if e.Payload["call_id"] == id || e.Payload["tool_call_id"] == id {
			if v, ok := e.Payload["category"].(string); ok {
				note(fmt.Sprintf("the %s event", e.Kind), v)
			}
		}
	}
	if len(places) == 0 {
		return fmt.Errorf("expected the kernel to name the category %q for call %s somewhere (tool_result error_category, post-tool-call payload, or an event with its call_id); it named none", category, id)
	}
	if len(wrong) > 0 {
		return fmt.Errorf("expected category %q for call %s wherever named: %s", category, id, strings.Join(wrong, "; "))
	}
	return nil
}

// ER-09: the crashed call's result reaches the model promptly.
func (s *Scenario) promptAfterCall(n, ms, from int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	var last calllog.Entry
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolInvokeParams); ok && v.CallID == id && e.Answered() {
			last = e
		}
	}
	if last.Seq == 0 {
		return fmt.Errorf("no answered tool/invoke for call %s was recorded", id)
	}
	cur, err := s.modelEntry(n)
	if err != nil {
		return err
	}
	if d := cur.Start.Sub(last.End); d > time.Duration(ms)*time.Millisecond {
		return fmt.Errorf("expected model request %d within %d ms of the answer to call %s, it came after %v", n, ms, id, d)
	}
	return nil
}
