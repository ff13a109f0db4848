package steps

import (
	"fmt"
	"time"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// Span checks (TA-17). The kernel maps its span names to roles with the
// `role` field; containment is checked against the harness's own arrival
// and answer times of the requests the spans must cover. The slack absorbs
// clock-read granularity only: a span that really covers a request starts
// before the request is sent and ends after its answer arrives.
const spanSlack = 5 * time.Millisecond

// decisionHold is how long the tracing scenario's plan-ready subscriber
// holds its answer: twenty times the slack, so a span that does not really
// enclose the dispatch (one that ends as it starts) cannot pass for one.
const decisionHold = 100 * time.Millisecond

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the subscriber "([^"]+)" takes a while to answer$`), func(id string) error {
			b := s.World.Hooks.Get(id)
			b.Hold = decisionHold
			s.World.Hooks.Set(id, b)
			return nil
		})
	})
}

type spanIndex struct {
	byID  map[string]wire.Span
	spans []wire.Span
}

func (s *Scenario) spanIndex() spanIndex { return newSpanIndex(s.World.Spans(), s.SessionID) }

// newSpanIndex indexes the spans of one session. It needs no recorded
// requests, so the offline trace check (CheckTrace) uses it too.
func newSpanIndex(all []wire.Span, session string) spanIndex {
	ix := spanIndex{byID: map[string]wire.Span{}}
	for _, sp := range all {
		if sp.SessionID != session {
			continue
		}
		ix.spans = append(ix.spans, sp)
		ix.byID[sp.SpanID] = sp
	}
	return ix
}

// inTurn says whether sp lies within the nearest turn span above it: the
// nesting every model call, tool execution, policy chain and in-turn hook
// chain must show (TA-17, HD-13).
func (ix spanIndex) inTurn(sp wire.Span) bool {
	t, found := ix.ancestor(sp, wire.RoleTurn)
	return found && within(sp, t)
}

// childrenOf groups the spans of a role by their parent span id.
func (ix spanIndex) childrenOf(role string) map[string][]wire.Span {
	out := map[string][]wire.Span{}
	for _, sp := range ix.role(role) {
		out[sp.ParentSpanID] = append(out[sp.ParentSpanID], sp)
	}
	return out
}

func (ix spanIndex) role(r string) []wire.Span {
	var out []wire.Span
	for _, sp := range ix.spans {
		if sp.Role == r {
			out = append(out, sp)
		}
	}
	return out
}

// ancestor returns the nearest ancestor of sp with the role, if any.
func (ix spanIndex) ancestor(sp wire.Span, role string) (wire.Span, bool) {
	for i := 0; i < 64 && sp.ParentSpanID != ""; i++ {
		p, ok := ix.byID[sp.ParentSpanID]
		if !ok {
			return wire.Span{}, false
		}
		if p.Role == role {
			return p, true
		}
		sp = p
	}
	return wire.Span{}, false
}

func covers(sp wire.Span, e calllog.Entry) bool {
	start, end := e.Start.UnixNano(), e.End.UnixNano()
	return sp.StartUnixNano <= start+int64(spanSlack) && sp.EndUnixNano >= end-int64(spanSlack)
}

func within(inner, outer wire.Span) bool {
	return outer.StartUnixNano <= inner.StartUnixNano+int64(spanSlack) && outer.EndUnixNano >= inner.EndUnixNano-int64(spanSlack)
}

func (s *Scenario) turnSpanCount() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	turns := len(s.turns()) - 1
	got := len(s.spanIndex().role(wire.RoleTurn))
	if got != turns {
		return fmt.Errorf("expected one %q span per turn (%s), the kernel sent %d", wire.RoleTurn, plain.Count(turns, "turn"), got)
	}
	return nil
}

// coveredBy checks that each request with the method lies inside a span of
// the role whose ancestor (or self, for turn) is a turn span containing it.
func (s *Scenario) coveredBy(method, role string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ix := s.spanIndex()
	n := 0
	for _, e := range s.requests() {
		if e.Method != method {
			continue
		}
		n++
		ok := false
		for _, sp := range ix.role(role) {
			if !covers(sp, e) {
				continue
			}
			if ix.inTurn(sp) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("request #%d (%s) is not covered by a %q span nested in a %q span (spans sent: %d %s, %d %s)",
				e.Seq, e.Label, role, wire.RoleTurn, len(ix.role(role)), role, len(ix.role(wire.RoleTurn)), wire.RoleTurn)
		}
	}
	if n == 0 {
		return notReached("the scenario recorded no %s request to check", method)
	}
	return nil
}

// policyChainBeforeApply: in every turn that applies the tool, the turn's
// plan decisions (its plan-ready dispatches and permission requests) lie
// inside one policy_chain span nested in that turn's span, and that span
// ends before the turn's first invoke of the tool (step 11 precedes step
// 12). A span anywhere before the apply is not enough: a zero-length span at
// the start of the turn encloses no decision.
func (s *Scenario) policyChainBeforeApply(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ix := s.spanIndex()
	checked := 0
	for i, turn := range s.turns() {
		if i == 0 {
			continue
		}
		var apply *calllog.Entry
		var decisions []calllog.Entry
		for _, e := range turn {
			switch v := e.Value.(type) {
			case wire.HookDispatchParams:
				if v.Point == wire.PointPlanReady {
					decisions = append(decisions, e)
				}
			case wire.PermissionParams:
				decisions = append(decisions, e)
			}
			if e.Label == "invoke "+tool && apply == nil {
				e := e
				apply = &e
			}
		}
		if apply == nil {
			continue
		}
		if len(decisions) == 0 {
			return notReached("turn %d applied %q (#%d) with no plan-ready dispatch or permission request to see its plan decisions by (the scenario needs a subscriber at plan-ready)", i, tool, apply.Seq)
		}
		checked++
		ok := false
		for _, sp := range ix.role(wire.RolePolicyChain) {
			t, found := ix.ancestor(sp, wire.RoleTurn)
			if !found || !within(sp, t) || sp.EndUnixNano > apply.Start.UnixNano()+int64(spanSlack) {
				continue
			}
			all := true
			for _, d := range decisions {
				if !covers(sp, d) {
					all = false
					break
				}
			}
			if all && t.StartUnixNano <= apply.Start.UnixNano() && t.EndUnixNano >= apply.End.UnixNano()-int64(spanSlack) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("turn %d applied %q (#%d) without a %q span in that turn's span that encloses the turn's %d plan decision request(s) (first %s, #%d) and ends before the apply (%d %s spans sent)",
				i, tool, apply.Seq, wire.RolePolicyChain, len(decisions), decisions[0].Label, decisions[0].Seq, len(ix.role(wire.RolePolicyChain)), wire.RolePolicyChain)
		}
	}
	if checked == 0 {
		return notReached("the scenario recorded no invoke of %q to check", tool)
	}
	return nil
}
