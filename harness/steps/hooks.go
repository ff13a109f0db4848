package steps

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

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
// Arrival times trail the kernel's own timer by the request's transit
// time, so on a loaded machine the measured wait can fall short of d; half
// of d still catches a kernel that gives up at once or uses a much shorter
// timeout, without letting load flip a verdict.
func hookMinWait(d time.Duration) time.Duration { return d / 2 }

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		// Setup.
		sc.Step(stepRE(`^these hook subscribers at "([^"]+)", in this order:$`), s.hookTable)
		sc.Step(stepRE(`^an? (observe|transform|veto) subscriber "([^"]+)" at "([^"]+)" that (.+)$`), s.subscriberThat)
		sc.Step(stepRE(`^the default hook timeout is (\d+) ms$`), s.defaultHookTimeout)
		sc.Step(stepRE(`^hook subscriber "([^"]+)" has a timeout of (\d+) ms$`), s.hookTimeout)
		sc.Step(stepRE(`^hook subscriber "([^"]+)" is a third-party plugin$`), s.thirdPartyHook)
		sc.Step(stepRE(`^the plugin of hook subscriber "([^"]+)" supports only (.+)$`), s.hookSupportedPoints)
		sc.Step(stepRE(`^hook subscribers (.+) wait for each other at a barrier$`), s.hookBarrier)

		// Order and payload flow (HD-01, HD-06, HD-15).
		sc.Step(stepRE(`^the subscribers at "([^"]+)" were dispatched in this order: (.+)$`), s.proves(s.hookOrder, "HD-01", "HD-02", "HD-08", "HD-10", "HD-16"))
		sc.Step(stepRE(`^hook subscribers? (.+) (?:was|were) never dispatched$`), s.proves(s.hookNeverDispatched, "HD-03", "HD-09", "HD-10", "HD-11"))
		sc.Step(stepRE(`^in the first "([^"]+)" chain the subscribers saw these markers:$`), s.proves(s.hookMarkersSeen, "HD-01"))
		sc.Step(stepRE(`^model request (\d+) carried the hook markers (.+)$`), s.proves(s.requestMarkers, "HD-01", "HD-02", "HD-06", "HD-10"))
		sc.Step(stepRE(`^"([^"]+)" was dispatched only after "([^"]+)" had answered$`), s.proves(s.dispatchedAfter, "HD-06", "HD-15"))
		sc.Step(stepRE(`^"([^"]+)" received the payload "([^"]+)" returned$`), s.proves(s.receivedPayloadOf, "HD-02", "HD-10", "HD-15"))
		sc.Step(stepRE(`^the subscribers at the barrier were all in flight together$`), s.proves(s.hookBarrierOpened, "HD-07"))

		// Failures (HD-02, HD-03, HD-04, HD-10, HD-14).
		sc.Step(stepRE(`^a hook_error event from "([^"]+)" with point "([^"]+)", mode "([^"]+)" and category "([^"]+)" was reported$`), s.proves(s.hookErrorReported, "HD-03", "HD-04", "HD-09", "HD-10"))
		sc.Step(stepRE(`^the hook_error event of "([^"]+)" names it as its producer and subscriber$`), s.proves(s.hookErrorProducer, "HD-14"))
		sc.Step(stepRE(`^an event attributable to hook subscriber "([^"]+)" was reported$`), s.proves(s.recordAttributable, "HD-02", "HD-10"))
		sc.Step(stepRE(`^the session ended with the status the kernel declares for an aborted transform$`), s.proves(s.transformAbortStatus, "HD-03", "HD-09", "HD-10"))
		sc.Step(stepRE(`^the turn did not go on after the dispatch to "([^"]+)"$`), s.proves(s.turnStoppedAfter, "HD-03", "HD-09", "HD-10"))
		sc.Step(stepRE(`^no tool/invoke of "([^"]+)" reached the harness$`), s.proves(s.noInvokeOf, "HD-04", "HD-08", "HD-10", "HD-11"))
		sc.Step(stepRE(`^a tool/invoke of "([^"]+)" reached the harness$`), s.proves(s.invokeOf, "HD-08", "HD-11"))
		sc.Step(stepRE(`^the plan-ready chain reached "([^"]+)" unless the kernel declares that a policy denial ends it$`), s.proves(s.chainAfterPolicyDeny, "HD-08", "HD-11"))
		sc.Step(stepRE(`^no hook_error event was reported$`), s.proves(s.noHookError, "HD-09"))
		sc.Step(stepRE(`^model request (\d+) carried a denial result for every "([^"]+)" call$`), s.proves(s.denialResults, "HD-04", "HD-08", "HD-10", "HD-11"))

		// Timeouts (HD-05).
		sc.Step(stepRE(`^every dispatch to "([^"]+)" announced a timeout of (\d+) ms$`), s.proves(s.announcedTimeout, "HD-05"))
		sc.Step(stepRE(`^the kernel gave up on "([^"]+)" after at least (\d+) ms every time and went on without its answer$`), s.proves(s.gaveUpOn, "HD-05"))
		sc.Step(stepRE(`^the kernel waited for "([^"]+)" every time and went on only after its answer$`), s.proves(s.waitedFor, "HD-05"))

		// Policy, config, context (HD-12, HD-16, HD-17).
		sc.Step(stepRE(`^a plan_item event for tool "([^"]+)" with decided_by naming "([^"]+)" was reported$`), s.proves(s.planItemDecidedBy, "HD-12"))
		sc.Step(stepRE(`^a frontend/permission request for "([^"]+)" reached the harness$`), s.proves(s.permissionAsked, "HD-12"))
		sc.Step(stepRE(`^no hook dispatch reached the harness$`), s.proves(s.noHookDispatch, "HD-12", "HD-16"))
		sc.Step(stepRE(`^the kernel refuses the session config naming "([^"]+)"$`), s.proves(s.configRefusedNaming, "HD-16"))
		sc.Step(stepRE(`^no hook dispatch concerned "([^"]+)"$`), s.proves(s.noDispatchConcerning, "HD-17"))
		sc.Step(stepRE(`^every hook dispatch carried the payload variant of its point$`), s.proves(s.variantsMatchPoints, "HD-17"))
		sc.Step(stepRE(`^context/assemble was sent once per turn, before that turn's pre-model-call dispatches and model request$`), s.proves(s.assembleOncePerTurn, "HD-17"))
		sc.Step(stepRE(`^every model request carried the context contributions of its turn$`), s.proves(s.contributionsForwarded, "HD-17"))
		sc.Step(stepRE(`^model request (\d+) carried exactly the messages "([^"]+)" returned$`), s.proves(s.requestMessagesFrom, "HD-01"))

		// Spans (HD-13).
		sc.Step(stepRE(`^every hook chain was traced as one hook_dispatch span with one hook_subscriber span per subscriber called$`), s.proves(s.hookSpans, "HD-13"))
		sc.Step(stepRE(`^every hook_dispatch span of a turn lies within that turn's span$`), s.proves(s.hookSpansInTurns, "HD-13"))
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
		"answers with an outcome that does not fit its mode":                  fakes.HookWrongOutcome,
		"answers with a malformed result":                                     fakes.HookMalformed,
		"changes the model":                                                   fakes.HookChangeModel,
		"changes one byte of the payload":                                     fakes.HookTamper,
		"answers with the payload of another point":                           fakes.HookWrongVariant,
		"denies without a reason":                                             fakes.HookDenyNoReason,
		"answers ALLOW with an outcome that does not fit its mode":            fakes.HookWrongOutcomeAllow,
		"answers with a null result":                                          fakes.HookNullResult,
		"answers the payload unchanged, spelling its empty lists another way": fakes.HookRespellEmpty,
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
	b.Hold = s.env.Scale(b.Hold)
	if b.Action == fakes.HookHang {
		b.Limit = s.env.Scale(fakes.HangLimit)
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
			s.Cfg.Hooks.Subscribers[len(s.Cfg.Hooks.Subscribers)-1].TimeoutMS = s.scaleMS(n)
		}
	}
	return nil
}

func (s *Scenario) defaultHookTimeout(ms int) error {
	s.Cfg.Hooks.DefaultTimeoutMS = s.scaleMS(ms)
	return nil
}

// scaleMS stretches a duration in ms written in a feature by the run's
// timeout multiplier (--timeout-multiplier), so that hook timeouts, the
// fakes' holds and the checks' bounds all grow together.
func (s *Scenario) scaleMS(ms int) int {
	return int(s.env.Scale(time.Duration(ms)*time.Millisecond) / time.Millisecond)
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
	return s.eachDeclaration(id, func(sub *wire.Subscriber) { sub.TimeoutMS = s.scaleMS(ms) })
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
	s.hooks.barrier = fakes.NewBarrier(len(ids), s.env.Scale(hookBarrierTimeout))
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
