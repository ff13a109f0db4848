package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// Answers that fit their mode (PROTOCOL.md §7.2) and must be taken as
// such: a veto's DENY, with or without its optional reason, is the veto's
// answer and no failure of the subscriber (HD-14: a hook_error records a
// subscriber that failed); a transform's echo that spells an empty list of
// the payload as null, or leaves a null one out, is the unchanged payload
// (HD-09: "an unchanged payload is accepted everywhere"; §3 "Arrays and
// null", §9 HookPayload: messages and tools "null = absent").

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^no hook_error event names "([^"]+)", whose DENY was its answer and no failure, though the kernel recorded the failure of "([^"]+)"$`), s.proves(s.noHookErrorForDeny, "HD-14"))
		sc.Step(stepRE(`^the kernel took the echo of "([^"]+)" for the unchanged payload and sent the model its messages$`), s.proves(s.echoTakenAsUnchanged, "HD-09"))
	})
}

// hookAnswer decodes the answer the fake recorded for a dispatch.
func hookAnswer(e calllog.Entry) (wire.HookDispatchResult, bool) {
	var r wire.HookDispatchResult
	if len(e.Result) == 0 || hookUnmarshal(e.Result, &r) != nil {
		return r, false
	}
	return r, true
}

// HD-14: a DENY is a veto's expected answer (§7.2), so no hook_error is
// due for it. The witness is a subscriber that really failed in the same
// session: only a kernel that records such a failure says something by its
// silence about the DENY.
func (s *Scenario) noHookErrorForDeny(id, witness string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	var denied []string
	for _, e := range s.hookDispatchesTo(id) {
		if r, ok := hookAnswer(e); ok && r.Outcome == wire.OutcomeVeto && r.Decision == wire.DecisionDeny {
			denied = append(denied, fmt.Sprintf("#%d", e.Seq))
		}
	}
	if len(denied) == 0 {
		return notReached("%q never answered a dispatch with DENY (it was dispatched %s), so no DENY of it was judged", id, plain.Count(len(s.hookDispatchesTo(id)), "time"))
	}
	if err := s.recordAttributable(witness); err != nil {
		return notReached("the kernel recorded no failure of %q either, so its silence about %q's DENY shows nothing", witness, id)
	}
	if evs := s.eventsNaming(wire.EventHookError, id); len(evs) > 0 {
		return fmt.Errorf("%q answered DENY (%s), a veto's expected answer (PROTOCOL.md §7.2), yet the kernel reported a hook_error for it (producer %q, %s): a DENY is the subscriber's decision, not its failure",
			id, plain.And(denied), evs[0].Producer, plain.JSON(evs[0].Payload))
	}
	return nil
}

// HD-09: an echo that differs from the payload sent only in how its empty
// lists are spelled is the unchanged payload. The kernel reports no
// hook_error for it, and the turn goes on to the model with the echo's
// messages.
func (s *Scenario) echoTakenAsUnchanged(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	var at calllog.Entry
	for _, e := range s.hookDispatchesTo(id) {
		if hookParams(e).Point == wire.PointPreModelCall {
			at = e
			break
		}
	}
	if at.Seq == 0 {
		return notReached("%q was never dispatched at pre-model-call, so no echo of it was judged", id)
	}
	echo, ok := hookResultPayload(at)
	if !ok {
		return notReached("%q (#%d) did not answer with a payload (the call ended with %q), so no echo of it was judged", id, at.Seq, at.Err)
	}
	how := respellings(at.Params, at.Result)
	if evs := s.eventsNaming(wire.EventHookError, id); len(evs) > 0 {
		return fmt.Errorf("%q (#%d) echoed the payload unchanged but for %s (null is absent for these lists: PROTOCOL.md §9 HookPayload), yet the kernel reported a hook_error for it (producer %q, %s)",
			id, at.Seq, how, evs[0].Producer, plain.JSON(evs[0].Payload))
	}
	for _, e := range s.requests() {
		if e.Seq <= at.Seq || e.TurnID != at.TurnID || e.Method != wire.MethodModelStream {
			continue
		}
		p, _ := e.Value.(wire.ModelStreamParams)
		if diff := hookJSONDiff(roleBlocks(echo.Messages), roleBlocks(p.Messages)); diff != "" {
			return fmt.Errorf("expected the model request after %q's unchanged echo (#%d) to carry its messages, block by block; model request #%d differs (-echoed +sent):\n%s", id, at.Seq, e.Seq, diff)
		}
		return nil
	}
	return fmt.Errorf("expected the turn to go on to the model after %q echoed the payload unchanged but for %s (#%d); the kernel sent no model request in turn %q after it", id, how, at.Seq, at.TurnID)
}

// respellings describes how the empty lists of the payload answered in
// result are spelled differently from those of the payload sent in params,
// e.g. `tools [] → null`; "" when they are spelled alike.
func respellings(params, result json.RawMessage) string {
	var sent, got struct {
		Payload map[string]json.RawMessage `json:"payload"`
	}
	_ = json.Unmarshal(params, &sent)
	_ = json.Unmarshal(result, &got)
	spell := func(m map[string]json.RawMessage, k string) string {
		v, ok := m[k]
		if !ok {
			return "absent"
		}
		return string(v)
	}
	var out []string
	for _, k := range []string{"messages", "tools"} {
		a, b := spell(sent.Payload, k), spell(got.Payload, k)
		if a != b && slices.Contains([]string{"absent", "null", "[]"}, a) && slices.Contains([]string{"absent", "null", "[]"}, b) {
			out = append(out, fmt.Sprintf("%s %s → %s", k, a, b))
		}
	}
	if len(out) == 0 {
		return "the spelling of its empty lists"
	}
	return strings.Join(out, ", ")
}
