package steps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

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
	ids := quotedList(list)
	// The skipped subscribers' points must have had a chain at all, or
	// nothing was skipped: a chain that never ran proves no short-circuit.
	points := map[string]bool{}
	for _, sub := range s.Cfg.Hooks.Subscribers {
		if slices.Contains(ids, sub.ID) {
			points[sub.Point] = true
		}
	}
	ran := false
	for _, e := range s.hookRequests() {
		ran = ran || points[hookParams(e).Point]
	}
	if !ran {
		return notReached("no chain ran at the point of %s, so there was nothing to skip", strings.Join(ids, ", "))
	}
	for _, id := range ids {
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
	got := s.hookMarkersIn(r.Messages)
	if slices.Equal(want, got) {
		return nil
	}
	err = fmt.Errorf("expected model request %s to carry the markers [%s] in that order, it carried [%s]",
		nth, strings.Join(want, ", "), strings.Join(got, ", "))
	out, why, ok := s.unappliedChain(r)
	if !ok {
		return err
	}
	// Only HD-01 needs the change applied; the chain's last answer shows
	// whether it ran past every observer and in order.
	var rest error
	if chained := s.hookMarkersIn(out); !slices.Equal(want, chained) {
		rest = fmt.Errorf("%s; the chain's last transform returned the markers [%s], expected [%s]",
			why, strings.Join(chained, ", "), strings.Join(want, ", "))
	}
	return blameOnly([]string{"HD-01"}, fmt.Errorf("%w (%s)", err, why), rest)
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

// HD-06/HD-15: b is dispatched only after a answered.
func (s *Scenario) dispatchedAfter(b, a string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	chains := s.hookChainsWith(a, b)
	if len(chains) == 0 {
		// Whether both were dispatched is the order checks' to judge.
		return notReached("no chain dispatched both %q and %q (dispatches: %s)", a, b, strings.Join(labels(s.hookRequests()), "; "))
	}
	for _, c := range chains {
		ea, _ := hookEntry(c, a)
		eb, _ := hookEntry(c, b)
		if ea.Answered() && eb.Seq > ea.EndSeq {
			continue
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
		return notReached("no chain dispatched both %q and %q", t, x)
	}
	for _, c := range chains {
		et, _ := hookEntry(c, t)
		ex, _ := hookEntry(c, x)
		out, ok := hookResultPayload(et)
		if !ok {
			return notReached("%q (#%d) did not answer with a payload, so there is no output to compare", t, et.Seq)
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
		return scenarioDefect("the scenario declared no hook barrier")
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
		strings.Join(ids, ", "), s.env.Scale(hookBarrierTimeout))
}
