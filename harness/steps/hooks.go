package steps

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Hook dispatch (HD-01..HD-17): setup steps that declare and script hook
// subscribers, and checks over the recorded hook/dispatch requests, the
// events and the spans. Checks of hook requests look at the scenario's
// root session.

// hookState is the hook area's part of a scenario.
type hookState struct {
	markers    []string // texts the scripted transforms append
	barrier    *fakes.Barrier
	barrierIDs []string
}

// hookBarrierTimeout is how long subscribers at a barrier wait for each
// other before giving up (a kernel that calls them one at a time).
const hookBarrierTimeout = time.Second

// hookMinWait is the least waiting the harness demands for a timeout of d.
// It measures from the request's arrival, which trails the kernel's own
// timer by the request's transit time, so on a loaded machine the
// measured wait can fall short of d; half of d still catches a kernel
// that gives up at once or uses a much shorter timeout, without letting
// load flip a verdict.
func hookMinWait(d time.Duration) time.Duration { return d / 2 }

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc *godog.ScenarioContext) {
		// Setup.
		sc.Step(stepRE(`^these hook subscribers at "([^"]+)", in this order:$`), s.hookTable)
		sc.Step(stepRE(`^an? (observe|transform|veto) subscriber "([^"]+)" at "([^"]+)" that (.+)$`), s.subscriberThat)
		sc.Step(stepRE(`^the default hook timeout is (\d+) ms$`), s.defaultHookTimeout)
		sc.Step(stepRE(`^hook subscriber "([^"]+)" has a timeout of (\d+) ms$`), s.hookTimeout)
		sc.Step(stepRE(`^hook subscriber "([^"]+)" is a third-party plugin$`), s.thirdPartyHook)
		sc.Step(stepRE(`^the plugin of hook subscriber "([^"]+)" supports only (.+)$`), s.hookSupportedPoints)
		sc.Step(stepRE(`^hook subscribers (.+) wait for each other at a barrier$`), s.hookBarrier)

		// Order and payload flow (HD-01, HD-06, HD-15).
		sc.Step(stepRE(`^the subscribers at "([^"]+)" were dispatched in this order: (.+)$`), s.hookOrder)
		sc.Step(stepRE(`^hook subscribers? (.+) (?:was|were) never dispatched$`), s.hookNeverDispatched)
		sc.Step(stepRE(`^in the first "([^"]+)" chain the subscribers saw these markers:$`), s.hookMarkersSeen)
		sc.Step(stepRE(`^model request (\d+) carried the hook markers (.+)$`), s.requestMarkers)
		sc.Step(stepRE(`^"([^"]+)" was dispatched only after "([^"]+)" had answered$`), func(b, a string) error {
			return s.dispatchedAfter(b, a, false)
		})
		sc.Step(stepRE(`^"([^"]+)" was dispatched only after "([^"]+)" had answered or its timeout had passed$`), func(b, a string) error {
			return s.dispatchedAfter(b, a, true)
		})
		sc.Step(stepRE(`^"([^"]+)" received the payload "([^"]+)" returned$`), s.receivedPayloadOf)
		sc.Step(stepRE(`^the subscribers at the barrier were all in flight together$`), s.hookBarrierOpened)

		// Failures (HD-02, HD-03, HD-04, HD-10, HD-14).
		sc.Step(stepRE(`^a hook_error event from "([^"]+)" with point "([^"]+)", mode "([^"]+)" and category "([^"]+)" was reported$`), s.hookErrorReported)
		sc.Step(stepRE(`^an event attributable to hook subscriber "([^"]+)" was reported$`), s.recordAttributable)
		sc.Step(stepRE(`^the session ended with the status the kernel declares for an aborted transform$`), s.transformAbortStatus)
		sc.Step(stepRE(`^the turn did not go on after the dispatch to "([^"]+)"$`), s.turnStoppedAfter)
		sc.Step(stepRE(`^no tool/invoke of "([^"]+)" reached the harness$`), s.noInvokeOf)
		sc.Step(stepRE(`^a tool/invoke of "([^"]+)" reached the harness$`), s.invokeOf)
		sc.Step(stepRE(`^no hook_error event was reported$`), s.noHookError)
		sc.Step(stepRE(`^model request (\d+) carried a denial result for every "([^"]+)" call$`), s.denialResults)

		// Timeouts (HD-05).
		sc.Step(stepRE(`^every dispatch to "([^"]+)" announced a timeout of (\d+) ms$`), s.announcedTimeout)
		sc.Step(stepRE(`^the kernel gave up on "([^"]+)" after at least (\d+) ms every time and went on without its answer$`), s.gaveUpOn)
		sc.Step(stepRE(`^the kernel waited for "([^"]+)" every time and went on only after its answer$`), s.waitedFor)

		// Policy, config, context (HD-12, HD-16, HD-17).
		sc.Step(stepRE(`^a plan_item event for tool "([^"]+)" with decided_by naming "([^"]+)" was reported$`), s.planItemDecidedBy)
		sc.Step(stepRE(`^a frontend/permission request for "([^"]+)" reached the harness$`), s.permissionAsked)
		sc.Step(stepRE(`^no hook dispatch reached the harness$`), s.noHookDispatch)
		sc.Step(stepRE(`^the kernel refuses the session config naming "([^"]+)"$`), s.configRefusedNaming)
		sc.Step(stepRE(`^no hook dispatch concerned "([^"]+)"$`), s.noDispatchConcerning)
		sc.Step(stepRE(`^every hook dispatch carried the payload variant of its point$`), s.variantsMatchPoints)
		sc.Step(stepRE(`^context/assemble was sent once per turn, before that turn's pre-model-call dispatches and model request$`), s.assembleOncePerTurn)
		sc.Step(stepRE(`^every model request carried the context contributions of its turn$`), s.contributionsForwarded)
		sc.Step(stepRE(`^model request (\d+) carried exactly the messages "([^"]+)" returned$`), s.requestMessagesFrom)

		// Spans (HD-13).
		sc.Step(stepRE(`^every hook chain was traced as one hook_dispatch span with one hook_subscriber span per subscriber called$`), s.hookSpans)
		sc.Step(stepRE(`^every hook_dispatch span of a turn lies within that turn's span$`), s.hookSpansInTurns)
	})
}

// ---- setup ----

var (
	hookHoldRe   = regexp.MustCompile(`^(.*?)\s*\bafter (\d+) ms$`)
	hookAppendRe = regexp.MustCompile(`^appends "([^"]*)"(?: to the messages)?$`)
)

// ParseHookBehavior reads a subscriber's scripted behaviour as the step
// library writes it, e.g. `appends "A"`, `fails`, `hangs`, `denies after
// 150 ms`. The marker is the text an appending subscriber adds. The
// property tests use it so that a counterexample they print as Gherkin
// scripts exactly what they ran.
func ParseHookBehavior(text string) (b fakes.HookBehavior, marker string, err error) {
	text = strings.TrimSpace(text)
	if m := hookHoldRe.FindStringSubmatch(text); m != nil {
		ms, _ := strconv.Atoi(m[2])
		b.Hold = time.Duration(ms) * time.Millisecond
		text = strings.TrimSpace(m[1])
	}
	if m := hookAppendRe.FindStringSubmatch(text); m != nil {
		b.Action, b.Text = fakes.HookAppend, m[1]
		return b, m[1], nil
	}
	actions := map[string]fakes.HookAction{
		"": fakes.HookDefault, "answers": fakes.HookDefault, "answers normally": fakes.HookDefault,
		"allows": fakes.HookAllow, "denies": fakes.HookDeny, "answers UNSPECIFIED": fakes.HookUnspecified,
		"fails": fakes.HookError, "crashes": fakes.HookCrash, "hangs": fakes.HookHang,
		"answers with an outcome that does not fit its mode": fakes.HookWrongOutcome,
		"answers with a malformed result":                    fakes.HookMalformed,
		"changes the model":                                  fakes.HookChangeModel,
		"changes one byte of the payload":                    fakes.HookTamper,
		"answers with the payload of another point":          fakes.HookWrongVariant,
	}
	a, ok := actions[text]
	if !ok {
		var known []string
		for k := range actions {
			if k != "" {
				known = append(known, strconv.Quote(k))
			}
		}
		slices.Sort(known)
		return b, "", fmt.Errorf("unknown subscriber behaviour %q; write one of: appends \"X\", %s (optionally followed by \"after N ms\")", text, strings.Join(known, ", "))
	}
	b.Action = a
	return b, "", nil
}

func (s *Scenario) declareHook(id, point, mode, behaviour string) error {
	if !slices.Contains(wire.HookPoints, point) {
		return fmt.Errorf("unknown hook point %q", point)
	}
	b, marker, err := ParseHookBehavior(behaviour)
	if err != nil {
		return err
	}
	if marker != "" {
		s.hooks.markers = append(s.hooks.markers, marker)
	}
	s.Cfg.Hooks.Subscribers = append(s.Cfg.Hooks.Subscribers, wire.Subscriber{ID: id, Point: point, Mode: mode})
	s.World.Hooks.Set(id, b)
	return nil
}

func (s *Scenario) subscriberThat(mode, id, point, behaviour string) error {
	return s.declareHook(id, point, mode, behaviour)
}

// hookTable declares subscribers from a table with the columns subscriber,
// mode and (optionally) behaviour and timeout ms.
func (s *Scenario) hookTable(point string, t *godog.Table) error {
	if len(t.Rows) < 2 {
		return fmt.Errorf("the subscriber table needs a header row and at least one subscriber")
	}
	cols := map[string]int{}
	for i, c := range t.Rows[0].Cells {
		cols[strings.TrimSpace(c.Value)] = i
	}
	for c := range cols {
		if !slices.Contains([]string{"subscriber", "mode", "behaviour", "timeout ms"}, c) {
			return fmt.Errorf("unknown column %q in the subscriber table (use subscriber, mode, behaviour, timeout ms)", c)
		}
	}
	if _, ok := cols["subscriber"]; !ok {
		return fmt.Errorf("the subscriber table needs a subscriber column")
	}
	if _, ok := cols["mode"]; !ok {
		return fmt.Errorf("the subscriber table needs a mode column")
	}
	cell := func(r *godog.Table, row int, name string) string {
		i, ok := cols[name]
		if !ok {
			return ""
		}
		return strings.TrimSpace(r.Rows[row].Cells[i].Value)
	}
	for i := 1; i < len(t.Rows); i++ {
		id, mode := cell(t, i, "subscriber"), cell(t, i, "mode")
		if err := s.declareHook(id, point, mode, cell(t, i, "behaviour")); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		if ms := cell(t, i, "timeout ms"); ms != "" {
			n, err := strconv.Atoi(ms)
			if err != nil {
				return fmt.Errorf("row %d: timeout ms %q is not a number", i, ms)
			}
			s.Cfg.Hooks.Subscribers[len(s.Cfg.Hooks.Subscribers)-1].TimeoutMS = n
		}
	}
	return nil
}

func (s *Scenario) defaultHookTimeout(ms int) error {
	s.Cfg.Hooks.DefaultTimeoutMS = ms
	return nil
}

// eachDeclaration applies f to every declaration of a subscriber id.
func (s *Scenario) eachDeclaration(id string, f func(*wire.Subscriber)) error {
	n := 0
	for i := range s.Cfg.Hooks.Subscribers {
		if s.Cfg.Hooks.Subscribers[i].ID == id {
			f(&s.Cfg.Hooks.Subscribers[i])
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no hook subscriber %q was declared before this step", id)
	}
	return nil
}

func (s *Scenario) hookTimeout(id string, ms int) error {
	return s.eachDeclaration(id, func(sub *wire.Subscriber) { sub.TimeoutMS = ms })
}

func (s *Scenario) thirdPartyHook(id string) error {
	return s.eachDeclaration(id, func(sub *wire.Subscriber) { sub.ThirdParty = true })
}

func (s *Scenario) hookSupportedPoints(id, list string) error {
	points := quotedList(list)
	if len(points) == 0 {
		return fmt.Errorf("name the supported points in quotes")
	}
	return s.eachDeclaration(id, func(sub *wire.Subscriber) { sub.SupportedPoints = points })
}

func (s *Scenario) hookBarrier(list string) error {
	ids := quotedList(list)
	if len(ids) < 2 {
		return fmt.Errorf("a barrier needs at least two subscribers")
	}
	s.hooks.barrier = fakes.NewBarrier(len(ids), hookBarrierTimeout)
	s.hooks.barrierIDs = ids
	for _, id := range ids {
		b := s.World.Hooks.Get(id)
		b.Barrier = s.hooks.barrier
		s.World.Hooks.Set(id, b)
	}
	return nil
}

// ---- views of the log ----

func hookParams(e calllog.Entry) wire.HookDispatchParams {
	p, _ := e.Value.(wire.HookDispatchParams)
	return p
}

func (s *Scenario) hookRequests() []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.requests() {
		if e.Method == wire.MethodHookDispatch {
			out = append(out, e)
		}
	}
	return out
}

// hookChains splits the root session's hook/dispatch requests into chains
// (see HookChains); point "" keeps the chains of every point.
func (s *Scenario) hookChains(point string) [][]calllog.Entry {
	all := HookChains(s.requests())
	if point == "" {
		return all
	}
	var out [][]calllog.Entry
	for _, c := range all {
		if hookParams(c[0]).Point == point {
			out = append(out, c)
		}
	}
	return out
}

func hookChainIDs(c []calllog.Entry) []string {
	var out []string
	for _, e := range c {
		out = append(out, hookParams(e).Subscriber)
	}
	return out
}

func hookEntry(c []calllog.Entry, id string) (calllog.Entry, bool) {
	for _, e := range c {
		if hookParams(e).Subscriber == id {
			return e, true
		}
	}
	return calllog.Entry{}, false
}

// hookMode is the mode of a subscriber at a point ("" when undeclared).
func (s *Scenario) hookMode(id, point string) string {
	for _, sub := range s.Cfg.Hooks.Subscribers {
		if sub.ID == id && (point == "" || sub.Point == point) {
			return sub.Mode
		}
	}
	return ""
}

func (s *Scenario) hookTimeoutOf(id string) time.Duration {
	for _, sub := range s.Cfg.Hooks.Subscribers {
		if sub.ID == id {
			ms := sub.TimeoutMS
			if ms == 0 {
				ms = s.Cfg.Hooks.DefaultTimeoutMS
			}
			return time.Duration(ms) * time.Millisecond
		}
	}
	return 0
}

// hookMarkersIn lists the scripted markers found in messages, in order.
func (s *Scenario) hookMarkersIn(msgs []wire.Message) []string {
	out := []string{}
	for _, m := range msgs {
		for _, c := range m.Content {
			if c.Type == wire.BlockText && slices.Contains(s.hooks.markers, c.Text) {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// hookResultPayload decodes the payload a subscriber answered with.
func hookResultPayload(e calllog.Entry) (*wire.HookPayload, bool) {
	if len(e.Result) == 0 {
		return nil, false
	}
	var r wire.HookDispatchResult
	if err := hookUnmarshal(e.Result, &r); err != nil || r.Payload == nil {
		return nil, false
	}
	return r.Payload, true
}

// hookCancelled reports whether the fake's recorded answer is the kernel's
// cancellation of the call.
func hookCancelled(e calllog.Entry) bool {
	return strings.Contains(e.Err, "context canceled")
}

// ---- order and payload flow ----

// hookSameOrder compares a chain with the declaration order. Adjacent
// observers may be called concurrently (HD-07), so within a run of them
// any arrival order is accepted; everything else must match exactly.
func (s *Scenario) hookSameOrder(point string, want, got []string) bool {
	if len(want) != len(got) {
		return false
	}
	for i := 0; i < len(want); {
		if s.hookMode(want[i], point) != wire.ModeObserve {
			if want[i] != got[i] {
				return false
			}
			i++
			continue
		}
		j := i
		for j < len(want) && s.hookMode(want[j], point) == wire.ModeObserve {
			j++
		}
		a, b := slices.Clone(want[i:j]), slices.Clone(got[i:j])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return false
		}
		i = j
	}
	return true
}

// HD-01: every chain at the point visits the subscribers in this order.
func (s *Scenario) hookOrder(point, list string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	want := quotedList(list)
	chains := s.hookChains(point)
	if len(chains) == 0 {
		return fmt.Errorf("expected dispatches at %q, the kernel sent none", point)
	}
	for i, c := range chains {
		if got := hookChainIDs(c); !s.hookSameOrder(point, want, got) {
			return fmt.Errorf("expected the chain at %q to visit %s in that order; chain %d (from request #%d) visited %s",
				point, strings.Join(want, ", "), i+1, c[0].Seq, strings.Join(got, ", "))
		}
	}
	return nil
}

// HD-11: skipped subscribers never receive the dispatch.
func (s *Scenario) hookNeverDispatched(list string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, id := range quotedList(list) {
		for _, e := range s.hookRequests() {
			if hookParams(e).Subscriber == id {
				return fmt.Errorf("expected %q never to be dispatched, the kernel dispatched it at %q (#%d)", id, hookParams(e).Point, e.Seq)
			}
		}
	}
	return nil
}

// HD-01: each subscriber of the first chain saw exactly the markers of the
// transforms before it.
func (s *Scenario) hookMarkersSeen(point string, t *godog.Table) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	chains := s.hookChains(point)
	if len(chains) == 0 {
		return fmt.Errorf("expected dispatches at %q, the kernel sent none", point)
	}
	first := chains[0]
	for i, r := range t.Rows {
		if len(r.Cells) < 2 {
			return fmt.Errorf("row %d: write | subscriber | markers |", i+1)
		}
		id := strings.TrimSpace(r.Cells[0].Value)
		if id == "subscriber" {
			continue // header
		}
		want := quotedList(r.Cells[1].Value)
		if want == nil {
			want = []string{}
		}
		e, ok := hookEntry(first, id)
		if !ok {
			return fmt.Errorf("expected %q in the first chain at %q, which visited %s", id, point, strings.Join(hookChainIDs(first), ", "))
		}
		got := s.hookMarkersIn(hookParams(e).Payload.Messages)
		if !slices.Equal(want, got) {
			return fmt.Errorf("expected %q to receive a payload with the markers [%s] (the transforms before it), it received [%s]",
				id, strings.Join(want, ", "), strings.Join(got, ", "))
		}
	}
	return nil
}

// HD-01/HD-02: the model request carries exactly these markers, in order.
func (s *Scenario) requestMarkers(nth, list string) error {
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	want := quotedList(list)
	if want == nil {
		want = []string{}
	}
	if got := s.hookMarkersIn(r.Messages); !slices.Equal(want, got) {
		return fmt.Errorf("expected model request %s to carry the markers [%s] in that order, it carried [%s]",
			nth, strings.Join(want, ", "), strings.Join(got, ", "))
	}
	return nil
}

// hookChainsWith lists the chains holding both subscribers.
func (s *Scenario) hookChainsWith(a, b string) [][]calllog.Entry {
	var out [][]calllog.Entry
	for _, c := range s.hookChains("") {
		_, okA := hookEntry(c, a)
		_, okB := hookEntry(c, b)
		if okA && okB {
			out = append(out, c)
		}
	}
	return out
}

// HD-06/HD-15: b is dispatched only after a answered (or, with orTimeout,
// after a's timeout had passed, for a subscriber the kernel gave up on).
func (s *Scenario) dispatchedAfter(b, a string, orTimeout bool) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	chains := s.hookChainsWith(a, b)
	if len(chains) == 0 {
		return fmt.Errorf("expected a chain dispatching both %q and %q, the kernel sent none (dispatches: %s)", a, b, strings.Join(labels(s.hookRequests()), "; "))
	}
	for _, c := range chains {
		ea, _ := hookEntry(c, a)
		eb, _ := hookEntry(c, b)
		if ea.Answered() && eb.Seq > ea.EndSeq {
			continue
		}
		if orTimeout {
			waited := eb.Start.Sub(ea.Start)
			if to := s.hookTimeoutOf(a); waited >= hookMinWait(to) {
				continue
			} else {
				return fmt.Errorf("expected %q to be dispatched only after %q had answered or its %v timeout had passed; it came %v after %q's dispatch (#%d), while %q was still running",
					b, a, to, waited.Round(time.Millisecond), a, ea.Seq, a)
			}
		}
		return fmt.Errorf("expected %q to be dispatched only after %q had answered; %q (#%d) arrived while %q (#%d) was still running",
			b, a, b, eb.Seq, a, ea.Seq)
	}
	return nil
}

// HD-15: x's payload is exactly what t returned.
func (s *Scenario) receivedPayloadOf(x, t string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	chains := s.hookChainsWith(t, x)
	if len(chains) == 0 {
		return fmt.Errorf("expected a chain dispatching both %q and %q, the kernel sent none", t, x)
	}
	for _, c := range chains {
		et, _ := hookEntry(c, t)
		ex, _ := hookEntry(c, x)
		out, ok := hookResultPayload(et)
		if !ok {
			return fmt.Errorf("%q (#%d) did not answer with a payload", t, et.Seq)
		}
		if diff := hookJSONDiff(*out, hookParams(ex).Payload); diff != "" {
			return fmt.Errorf("expected %q (#%d) to receive exactly the payload %q returned (-returned +received):\n%s", x, ex.Seq, t, diff)
		}
	}
	return nil
}

// HD-07: the subscribers at the barrier were all in flight at once: in
// some chain, every one of them arrived before any of them was answered
// (the barrier only keeps a concurrent kernel's calls in flight long
// enough to see it).
func (s *Scenario) hookBarrierOpened() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.hooks.barrierIDs
	if len(ids) == 0 {
		return fmt.Errorf("the scenario declared no hook barrier")
	}
	seen := false
	for _, c := range s.hookChains("") {
		var lastStart, firstEnd int
		n := 0
		for _, id := range ids {
			e, ok := hookEntry(c, id)
			if !ok {
				break
			}
			n++
			lastStart = max(lastStart, e.Seq)
			if e.Answered() && (firstEnd == 0 || e.EndSeq < firstEnd) {
				firstEnd = e.EndSeq
			}
		}
		if n < len(ids) {
			continue
		}
		seen = true
		if firstEnd == 0 || lastStart < firstEnd {
			return nil
		}
	}
	if !seen {
		return fmt.Errorf("expected a chain dispatching %s, the kernel sent none", strings.Join(ids, ", "))
	}
	return fmt.Errorf("expected %s to be in flight together; one of them was answered (after waiting up to %v for the others) before the last was dispatched, so the kernel called them one at a time",
		strings.Join(ids, ", "), hookBarrierTimeout)
}

// ---- failures ----

func (s *Scenario) hookEvents(kind string) []wire.Event {
	var out []wire.Event
	for _, ev := range s.World.Events() {
		if ev.SessionID == s.SessionID && (kind == "" || ev.Kind == kind) {
			out = append(out, ev)
		}
	}
	return out
}

// HD-03/HD-04/HD-14: the failure is a hook_error the kernel attributes to
// the subscriber (producer), naming point, mode and category.
func (s *Scenario) hookErrorReported(id, point, mode, category string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	var seen []string
	for _, ev := range s.hookEvents(wire.EventHookError) {
		p := ev.Payload
		if ev.Producer == id && p["point"] == point && p["mode"] == mode && p["category"] == category {
			return nil
		}
		seen = append(seen, fmt.Sprintf("producer %q point %v mode %v category %v subscriber %v", ev.Producer, p["point"], p["mode"], p["category"], p["subscriber"]))
	}
	if len(seen) == 0 {
		return fmt.Errorf("expected a hook_error event from %q (point %s, mode %s, category %s); the kernel reported no hook_error at all", id, point, mode, category)
	}
	return fmt.Errorf("expected a hook_error event with producer %q, point %s, mode %s and category %s; the kernel reported: %s", id, point, mode, category, strings.Join(seen, "; "))
}

// HD-02: some record names the observer: a hook_error, a log line,
// any event whose producer or payload subscriber is the subscriber.
func (s *Scenario) recordAttributable(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, ev := range s.hookEvents("") {
		if ev.Producer == id || ev.Payload["subscriber"] == id {
			return nil
		}
	}
	return fmt.Errorf("expected an event attributable to %q (producer or payload subscriber %q), the kernel reported none", id, id)
}

// HD-03: after an aborted transform the session ends with the
// status the kernel declares (reading hooks.transform_abort_status),
// failed when it declares none.
func (s *Scenario) transformAbortStatus() error {
	want := s.env.Info.Readings["hooks.transform_abort_status"]
	if want == "" {
		want = wire.StatusFailed
	}
	return s.sessionEndsWith(want)
}

// HD-03/HD-09: nothing of the turn follows the failed dispatch.
func (s *Scenario) turnStoppedAfter(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	var at *calllog.Entry
	for _, e := range s.hookRequests() {
		if hookParams(e).Subscriber == id {
			at = &e
			break
		}
	}
	if at == nil {
		return fmt.Errorf("expected a dispatch to %q, the kernel sent none", id)
	}
	for _, e := range s.requests() {
		if e.Seq <= at.Seq || e.TurnID != at.TurnID {
			continue
		}
		if e.Method == wire.MethodHookDispatch && hookParams(e).Point == wire.PointSessionEnd {
			continue
		}
		return fmt.Errorf("expected the turn to stop after %q failed (#%d), the kernel went on with %q (#%d)", id, at.Seq, e.Label, e.Seq)
	}
	return nil
}

func (s *Scenario) noInvokeOf(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.World.Log.Entries() {
		if e.Kind == calllog.Request && e.Method == wire.MethodToolInvoke && e.Label == "invoke "+tool {
			return fmt.Errorf("expected %q never to be applied, the kernel invoked it (#%d)", tool, e.Seq)
		}
	}
	return nil
}

func (s *Scenario) invokeOf(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.requests() {
		if e.Method == wire.MethodToolInvoke && e.Label == "invoke "+tool {
			return nil
		}
	}
	return fmt.Errorf("expected %q to be applied, the kernel never invoked it", tool)
}

func (s *Scenario) noHookError() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if evs := s.hookEvents(wire.EventHookError); len(evs) > 0 {
		return fmt.Errorf("expected no hook_error, the kernel reported %d (first: producer %q, %v)", len(evs), evs[0].Producer, evs[0].Payload)
	}
	return nil
}

// HD-04/HD-11: every call of the tool came back to the model as an error
// result (the denial).
func (s *Scenario) denialResults(nth, tool string) error {
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	var ids []string
	results := map[string]wire.ContentBlock{}
	for _, m := range r.Messages {
		for _, c := range m.Content {
			switch {
			case c.Type == wire.BlockToolUse && c.Name == tool:
				ids = append(ids, c.ID)
			case c.Type == wire.BlockToolResult:
				results[c.ToolUseID] = c
			}
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("model request %s holds no call of %q to check", nth, tool)
	}
	for _, id := range ids {
		res, ok := results[id]
		switch {
		case !ok:
			return fmt.Errorf("model request %s holds no result for the %q call %s", nth, tool, id)
		case !res.IsError:
			return fmt.Errorf("expected the result of the %q call %s in model request %s to be a denial (an error result), it is a success: %q", tool, id, nth, res.Content)
		}
	}
	return nil
}

// ---- timeouts ----

func (s *Scenario) hookDispatchesTo(id string) []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.hookRequests() {
		if hookParams(e).Subscriber == id {
			out = append(out, e)
		}
	}
	return out
}

// hookNext is the first request after e that is not part of e's own run of
// concurrently dispatched observers.
func (s *Scenario) hookNext(e calllog.Entry) (calllog.Entry, bool) {
	for _, r := range s.requests() {
		if r.Seq <= e.Seq {
			continue
		}
		if r.Method == wire.MethodHookDispatch && hookParams(r).Mode == wire.ModeObserve && hookParams(e).Mode == wire.ModeObserve &&
			hookParams(r).Point == hookParams(e).Point && r.TurnID == e.TurnID && (!e.Answered() || r.Start.Before(e.End)) {
			continue
		}
		return r, true
	}
	return calllog.Entry{}, false
}

// HD-05: the request carries the effective timeout.
func (s *Scenario) announcedTimeout(id string, ms int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ds := s.hookDispatchesTo(id)
	if len(ds) == 0 {
		return fmt.Errorf("expected dispatches to %q, the kernel sent none", id)
	}
	for _, e := range ds {
		if got := hookParams(e).TimeoutMS; got != ms {
			return fmt.Errorf("expected the dispatch to %q (#%d) to announce timeout_ms %d, it announced %d", id, e.Seq, ms, got)
		}
	}
	return nil
}

// HD-05: the kernel waited at least the timeout, then went on without the
// subscriber's answer (it cancelled the call, or its next request came
// before the answer).
func (s *Scenario) gaveUpOn(id string, ms int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ds := s.hookDispatchesTo(id)
	if len(ds) == 0 {
		return fmt.Errorf("expected dispatches to %q, the kernel sent none", id)
	}
	min := hookMinWait(time.Duration(ms) * time.Millisecond)
	for _, e := range ds {
		n, ok := s.hookNext(e)
		if !ok {
			return fmt.Errorf("the kernel sent nothing after giving %q (#%d) the dispatch", id, e.Seq)
		}
		if waited := n.Start.Sub(e.Start); waited < min {
			return fmt.Errorf("expected the kernel to wait %d ms for %q (#%d) before giving up (at least %v from the request's arrival), it went on with %q after %v",
				ms, id, e.Seq, min, n.Label, waited.Round(time.Millisecond))
		}
		if !hookCancelled(e) && e.Answered() && e.EndSeq < n.Seq {
			return fmt.Errorf("expected the kernel to give up on %q (#%d) at its timeout; it waited for the answer (%v later) and only then sent %q (#%d)",
				id, e.Seq, e.End.Sub(e.Start).Round(time.Millisecond), n.Label, n.Seq)
		}
	}
	return nil
}

// HD-05: a subscriber with a long enough timeout is answered and waited for.
func (s *Scenario) waitedFor(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ds := s.hookDispatchesTo(id)
	if len(ds) == 0 {
		return fmt.Errorf("expected dispatches to %q, the kernel sent none", id)
	}
	for _, e := range ds {
		if !e.Answered() || e.Err != "" {
			return fmt.Errorf("expected the kernel to wait for %q's answer (#%d); the call ended with %q after %v",
				id, e.Seq, e.Err, e.End.Sub(e.Start).Round(time.Millisecond))
		}
		if n, ok := s.hookNext(e); ok && n.Seq < e.EndSeq {
			return fmt.Errorf("expected the kernel to wait for %q's answer (#%d), it sent %q (#%d) first", id, e.Seq, n.Label, n.Seq)
		}
	}
	return nil
}

// ---- policy, config, context ----

// HD-12: policy decided the item inside the kernel and said which rule.
func (s *Scenario) planItemDecidedBy(tool, by string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	var seen []string
	for _, ev := range s.hookEvents(wire.EventPlanItem) {
		if ev.Payload["tool"] != tool {
			continue
		}
		d, _ := ev.Payload["decided_by"].(string)
		if strings.Contains(d, by) {
			return nil
		}
		seen = append(seen, strconv.Quote(d))
	}
	if len(seen) == 0 {
		return fmt.Errorf("expected a plan_item event for tool %q, the kernel reported none", tool)
	}
	return fmt.Errorf("expected the plan_item event for tool %q to say it was decided by %q, decided_by was %s", tool, by, strings.Join(seen, ", "))
}

func (s *Scenario) permissionAsked(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.requests() {
		if p, ok := e.Value.(wire.PermissionParams); ok {
			for _, it := range p.Items {
				if it.Tool == tool {
					return nil
				}
			}
		}
	}
	return fmt.Errorf("expected a frontend/permission request for %q, the kernel sent none", tool)
}

func (s *Scenario) noHookDispatch() error {
	if !s.ran {
		return fmt.Errorf("step needs the session to have run (add \"When the session runs\")")
	}
	if hs := s.hookRequests(); len(hs) > 0 {
		return fmt.Errorf("expected no hook/dispatch at all, the kernel sent %d (first: %q, #%d)", len(hs), hs[0].Label, hs[0].Seq)
	}
	return nil
}

// HD-16: the config is refused before the session starts, naming the block.
func (s *Scenario) configRefusedNaming(name string) error {
	if !s.ran {
		return fmt.Errorf("step needs the session to have run (add \"When the session runs\")")
	}
	if s.Rejected == nil {
		return fmt.Errorf("expected the kernel to refuse the session config (error %d naming %q), it accepted it and the session ended %q",
			wire.CodeConfigRejected, name, s.Result.Status)
	}
	if !strings.Contains(s.Rejected.Message, name) {
		return fmt.Errorf("expected the refusal to name %q, it says %q", name, s.Rejected.Message)
	}
	return nil
}

// HD-17: no generic dispatch concerns the point, by name or by variant.
func (s *Scenario) noDispatchConcerning(point string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.hookRequests() {
		if p := hookParams(e); p.Point == point || p.Payload.Variant == point {
			return fmt.Errorf("expected no hook/dispatch for %q, the kernel sent %q (#%d)", point, e.Label, e.Seq)
		}
	}
	return nil
}

func (s *Scenario) variantsMatchPoints() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	hs := s.hookRequests()
	if len(hs) == 0 {
		return fmt.Errorf("the scenario recorded no hook/dispatch to check")
	}
	for _, e := range hs {
		if p := hookParams(e); p.Payload.Variant != p.Point {
			return fmt.Errorf("the dispatch at %q (#%d) carried the payload variant %q", p.Point, e.Seq, p.Payload.Variant)
		}
	}
	return nil
}

// HD-17: one context/assemble per turn, before the turn's pre-model-call
// chain and model request (turns told apart by call_context.turn_id).
func (s *Scenario) assembleOncePerTurn() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	reqs := s.requests()
	checked := 0
	for _, m := range reqs {
		if m.Method != wire.MethodModelStream {
			continue
		}
		checked++
		var assembles []calllog.Entry
		for _, e := range reqs {
			if e.Method == wire.MethodContextAssemble && e.TurnID == m.TurnID {
				assembles = append(assembles, e)
			}
		}
		if len(assembles) != 1 {
			return fmt.Errorf("expected one context/assemble in turn %q, the kernel sent %d", m.TurnID, len(assembles))
		}
		a := assembles[0]
		if a.Seq > m.Seq {
			return fmt.Errorf("expected context/assemble (#%d) before the model request (#%d) of turn %q", a.Seq, m.Seq, m.TurnID)
		}
		for _, e := range reqs {
			if e.Method == wire.MethodHookDispatch && e.TurnID == m.TurnID && hookParams(e).Point == wire.PointPreModelCall && e.Seq < a.Seq {
				return fmt.Errorf("expected context/assemble (#%d) before the pre-model-call dispatch %q (#%d) of turn %q", a.Seq, e.Label, e.Seq, m.TurnID)
			}
		}
	}
	if checked == 0 {
		return fmt.Errorf("the scenario recorded no model request to check")
	}
	return nil
}

func (s *Scenario) contributionsForwarded() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	reqs := s.requests()
	n := 0
	for _, m := range reqs {
		p, ok := m.Value.(wire.ModelStreamParams)
		if !ok {
			continue
		}
		n++
		var res *wire.ContextAssembleResult
		for _, e := range reqs {
			if e.Method == wire.MethodContextAssemble && e.TurnID == m.TurnID && e.Seq < m.Seq && len(e.Result) > 0 {
				var r wire.ContextAssembleResult
				if hookUnmarshal(e.Result, &r) == nil {
					res = &r
				}
			}
		}
		if res == nil {
			return fmt.Errorf("no answered context/assemble precedes model request %d (#%d) in its turn", n, m.Seq)
		}
		if diff := hookJSONDiff(res.Contributions, p.AssembledContext); diff != "" {
			return fmt.Errorf("expected model request %d to carry the contributions of its turn as assembled_context (-contributed +sent):\n%s", n, diff)
		}
	}
	if n == 0 {
		return fmt.Errorf("the scenario recorded no model request to check")
	}
	return nil
}

// HD-17: the transformed messages reach the model exactly.
func (s *Scenario) requestMessagesFrom(nth, id string) error {
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	for _, e := range s.hookDispatchesTo(id) {
		if e.TurnID != r.CallContext.TurnID || hookParams(e).Point != wire.PointPreModelCall {
			continue
		}
		out, ok := hookResultPayload(e)
		if !ok {
			return fmt.Errorf("%q (#%d) did not answer with a payload", id, e.Seq)
		}
		if diff := hookJSONDiff(out.Messages, r.Messages); diff != "" {
			return fmt.Errorf("expected model request %s to carry exactly the messages %q returned (-returned +sent):\n%s", nth, id, diff)
		}
		return nil
	}
	return fmt.Errorf("no pre-model-call dispatch to %q in the turn of model request %s", id, nth)
}

// ---- spans (HD-13) ----

// hookSpans: for every chain, one hook_dispatch span covers its requests
// and has exactly one hook_subscriber child per request, each covering
// its request; no two chains share a span.
func (s *Scenario) hookSpans() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ix := s.spanIndex()
	children := map[string][]wire.Span{}
	for _, sp := range ix.role(wire.RoleHookSubscribe) {
		children[sp.ParentSpanID] = append(children[sp.ParentSpanID], sp)
	}
	chains := s.hookChains("")
	if len(chains) == 0 {
		return fmt.Errorf("the scenario recorded no hook/dispatch to check")
	}
	used := map[string]bool{}
	for _, c := range chains {
		first, last := c[0], c[0]
		for _, e := range c {
			if e.End.After(last.End) {
				last = e
			}
		}
		var found *wire.Span
		for _, p := range ix.role(wire.RoleHookDispatch) {
			if used[p.SpanID] || len(children[p.SpanID]) == 0 {
				continue
			}
			if p.StartUnixNano <= first.Start.UnixNano()+int64(spanSlack) && p.EndUnixNano >= last.End.UnixNano()-int64(spanSlack) {
				found = &p
				break
			}
		}
		what := fmt.Sprintf("the %q chain %s (#%d)", hookParams(first).Point, strings.Join(hookChainIDs(c), ", "), first.Seq)
		if found == nil {
			return fmt.Errorf("%s is not covered by a %q span with %q children (spans sent: %d %s, %d %s)", what,
				wire.RoleHookDispatch, wire.RoleHookSubscribe, len(ix.role(wire.RoleHookDispatch)), wire.RoleHookDispatch, len(ix.role(wire.RoleHookSubscribe)), wire.RoleHookSubscribe)
		}
		used[found.SpanID] = true
		kids := children[found.SpanID]
		if len(kids) != len(c) {
			return fmt.Errorf("%s called %d subscribers, its %q span %q has %d %q children", what, len(c), wire.RoleHookDispatch, found.Name, len(kids), wire.RoleHookSubscribe)
		}
		for _, e := range c {
			if !slices.ContainsFunc(kids, func(k wire.Span) bool { return covers(k, e) }) {
				return fmt.Errorf("in %s, the dispatch to %q (#%d) lies inside none of the %q children", what, hookParams(e).Subscriber, e.Seq, wire.RoleHookSubscribe)
			}
		}
	}
	// Spans for chains that called nobody are not counted; every other
	// hook_dispatch span must be one of the chains.
	for _, p := range ix.role(wire.RoleHookDispatch) {
		if len(children[p.SpanID]) > 0 && !used[p.SpanID] {
			return fmt.Errorf("the %q span %q has %d %q children but matches no chain of dispatches", wire.RoleHookDispatch, p.Name, len(children[p.SpanID]), wire.RoleHookSubscribe)
		}
	}
	return nil
}

// hookSpansInTurns: the span of a chain inside a turn lies within that
// turn's span.
func (s *Scenario) hookSpansInTurns() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ix := s.spanIndex()
	checked := 0
	for _, c := range s.hookChains("") {
		p := hookParams(c[0]).Point
		if p == wire.PointSessionStart || p == wire.PointSessionEnd {
			continue
		}
		checked++
		ok := false
		for _, sp := range ix.role(wire.RoleHookDispatch) {
			if !(sp.StartUnixNano <= c[0].Start.UnixNano()+int64(spanSlack) && sp.EndUnixNano >= c[0].End.UnixNano()-int64(spanSlack)) {
				continue
			}
			if t, found := ix.ancestor(sp, wire.RoleTurn); found && within(sp, t) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("the %q chain (#%d) has no %q span inside a %q span", p, c[0].Seq, wire.RoleHookDispatch, wire.RoleTurn)
		}
	}
	if checked == 0 {
		return fmt.Errorf("the scenario recorded no hook chain inside a turn to check")
	}
	return nil
}

// ---- JSON comparison ----

func hookUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// hookJSONDiff compares two values by their JSON encoding, where an absent
// field, null and an empty array or object all mean the same (PROTOCOL.md
// §3, arrays and null). It returns "" when they are equal.
func hookJSONDiff(a, b any) string {
	return cmp.Diff(hookJSONNormal(a), hookJSONNormal(b))
}

func hookJSONNormal(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unencodable: %v", err)
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return hookPruneEmpty(out)
}

func hookPruneEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			if e = hookPruneEmpty(e); e != nil {
				m[k] = e
			}
		}
		if len(m) == 0 {
			return nil
		}
		return m
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = hookPruneEmpty(e)
		}
		return out
	}
	return v
}

// HookChains splits recorded requests into hook chains: runs of consecutive
// hook/dispatch requests (nothing else in between) at one point in one
// turn, a repeated subscriber starting the next chain (pre-tool-call runs
// one chain per call). The property tests share it.
func HookChains(requests []calllog.Entry) [][]calllog.Entry {
	var all [][]calllog.Entry
	var cur []calllog.Entry
	flush := func() {
		if len(cur) > 0 {
			all = append(all, cur)
			cur = nil
		}
	}
	for _, e := range requests {
		if e.Method != wire.MethodHookDispatch {
			flush()
			continue
		}
		p := hookParams(e)
		if len(cur) > 0 {
			first := hookParams(cur[0])
			if first.Point != p.Point || cur[0].TurnID != e.TurnID || slices.ContainsFunc(cur, func(c calllog.Entry) bool {
				return hookParams(c).Subscriber == p.Subscriber
			}) {
				flush()
			}
		}
		cur = append(cur, e)
	}
	flush()
	return all
}
