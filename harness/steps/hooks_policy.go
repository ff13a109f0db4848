package steps

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

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
	if err := s.mustHaveStarted(); err != nil {
		return err
	}
	if hs := s.hookRequests(); len(hs) > 0 {
		return fmt.Errorf("expected no hook/dispatch at all, the kernel sent %d (first: %q, #%d)", len(hs), hs[0].Label, hs[0].Seq)
	}
	return nil
}

// HD-16: the config is refused before the session starts, naming the block.
func (s *Scenario) configRefusedNaming(name string) error {
	if err := s.mustHaveStarted(); err != nil {
		return err
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
		return notReached("the kernel sent no hook/dispatch to check")
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
		return notReached("the kernel made no model request to check")
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
		return notReached("the kernel made no model request to check")
	}
	return nil
}

// HD-01: the payload flow ends at the model. Step 3 streams the request the
// pre-model-call chain produced (step 2), so model request N carries
// exactly what the chain's last transform returned: every block, each with
// its role, in order, nothing added, nothing dropped. Where message
// boundaries fall is not part of it: a loop that merges consecutive
// messages of one role (or splits one), keeping every block and its order,
// sends the same conversation (PROTOCOL.md §7.3, "The request the chain
// produced"; the legal variant hooks/merges-consecutive-user-messages).
// Neither a timeout (HD-05) nor the context-assemble point (HD-17) is
// judged here.
func (s *Scenario) requestMessagesFrom(nth, id string) error {
	r, err := s.reachedModelRequest(nth)
	if err != nil {
		return err
	}
	for _, e := range s.hookDispatchesTo(id) {
		if e.TurnID != r.CallContext.TurnID || hookParams(e).Point != wire.PointPreModelCall {
			continue
		}
		out, ok := hookResultPayload(e)
		if !ok {
			return notReached("%q (#%d) did not answer with a payload, so there are no messages to compare", id, e.Seq)
		}
		if diff := hookJSONDiff(roleBlocks(out.Messages), roleBlocks(r.Messages)); diff != "" {
			err := fmt.Errorf("expected model request %s to carry exactly the messages %q returned, block by block (-returned +sent):\n%s", nth, id, diff)
			if _, why, ok := s.unappliedChain(r); ok {
				return fmt.Errorf("%w(%s)", err, why)
			}
			return err
		}
		return nil
	}
	return notReached("no pre-model-call dispatch to %q in the turn of model request %s", id, nth)
}

// roleBlock is one content block with the role of the message holding it.
type roleBlock struct {
	Role  string            `json:"role"`
	Block wire.ContentBlock `json:"block"`
}

// roleBlocks flattens messages into their blocks in order, each with its
// role: two message lists that differ only in where consecutive messages
// of one role are split compare equal.
func roleBlocks(ms []wire.Message) []roleBlock {
	out := []roleBlock{}
	for _, m := range ms {
		for _, c := range m.Content {
			out = append(out, roleBlock{Role: m.Role, Block: c})
		}
	}
	return out
}

// readingPolicyDenyEnds is the kernel's reading of A-21: whether the
// policy's denial of one plan item ends the plan-ready chain ("yes") or
// the later subscribers still see the plan ("no", the default).
const readingPolicyDenyEnds = "hooks.policy_deny_ends_chain"

// HD-08/HD-11: in a turn where the policy denied an item, the
// plan-ready chain goes on to the subscriber, unless the kernel declares
// that a policy denial ends the chain; then it must not.
func (s *Scenario) chainAfterPolicyDeny(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	reading := s.env.Info.Readings[readingPolicyDenyEnds]
	if reading != "" && reading != "yes" && reading != "no" {
		return fmt.Errorf("the kernel declares %s = %q; the readings are yes and no", readingPolicyDenyEnds, reading)
	}
	ends := reading == "yes"
	turns := map[string]bool{}
	for _, ev := range s.hookEvents(wire.EventPlanItem) {
		if d, _ := ev.Payload["decision"].(string); d == wire.PolicyDeny {
			t := ev.TurnID
			if v, _ := ev.Payload["turn_id"].(string); v != "" {
				t = v
			}
			turns[t] = true
		}
	}
	if len(turns) == 0 {
		return notReached("no plan_item row records a policy denial, so the turn of the denial is unknown")
	}
	for turn := range turns {
		var at *calllog.Entry
		for _, e := range s.hookDispatchesTo(id) {
			if e.TurnID == turn && hookParams(e).Point == wire.PointPlanReady {
				at = &e
				break
			}
		}
		switch {
		case ends && at != nil:
			return fmt.Errorf("the kernel declares %s = yes (a policy denial ends the plan-ready chain), but after the policy denied an item it dispatched %q at plan-ready (#%d)", readingPolicyDenyEnds, id, at.Seq)
		case !ends && at == nil:
			return fmt.Errorf("after the policy denied an item in turn %q, the plan-ready chain never reached %q; the later subscribers still see the plan unless the kernel declares %s = yes (A-21)", turn, id, readingPolicyDenyEnds)
		}
	}
	return nil
}
