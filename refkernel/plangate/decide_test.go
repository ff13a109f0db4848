package plangate

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

// heldFront is a primary frontend whose permission answers wait until the
// test lets them go, so another connection can act while one is pending.
type heldFront struct {
	fakeFront
	asked   chan wire.PermissionParams
	release chan wire.PermissionResult
}

func newHeldFront() *heldFront {
	return &heldFront{asked: make(chan wire.PermissionParams, 4), release: make(chan wire.PermissionResult)}
}

func (h *heldFront) Permission(ctx context.Context, p wire.PermissionParams) (wire.PermissionResult, error) {
	h.asked <- p
	select {
	case r := <-h.release:
		return r, nil
	case <-ctx.Done():
		return wire.PermissionResult{}, ctx.Err()
	}
}

func decideAsync(g *Gate, plan *wire.Plan) (<-chan []Ruling, *sync.WaitGroup) {
	out := make(chan []Ruling, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r, _ := g.Decide(context.Background(), cc, plan)
		out <- r
	}()
	return out, &wg
}

func askAll() []wire.PolicyRule { return []wire.PolicyRule{{Name: "ask", Decision: wire.PolicyAsk}} }

func frontendErrors(f *fakeFront) []wire.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.kinds(wire.EventFrontendError)
}

// A decision from another connection while the primary's answer is pending
// decides the item; the primary's later answer is rejected and reported.
func TestSecondConnectionDecidesWhilePermissionPending(t *testing.T) {
	h := newHeldFront()
	g := NewGate(GateConfig{Policy: Standard{}, Frontend: h, Rules: askAll()})
	plan := &wire.Plan{Items: []wire.PlanItem{item("p1", "fs", "write")}}
	done, _ := decideAsync(g, plan)
	<-h.asked
	out := g.Submit("s", "second", []wire.PlanDecision{{PlanItemID: "p1", Decision: wire.DecisionDeny}})
	if len(out) != 1 || !out[0].Accepted {
		t.Fatalf("second connection's decision: %+v, want accepted", out)
	}
	h.release <- wire.PermissionResult{Decisions: []wire.PlanDecision{{PlanItemID: "p1", Decision: wire.DecisionAllow}}}
	r := <-done
	if r[0].Allowed {
		t.Fatalf("the primary's late ALLOW took effect: %+v", r)
	}
	evs := frontendErrors(&h.fakeFront)
	if len(evs) != 1 || evs[0].Payload["connection"] != wire.ConnectionPrimary || evs[0].Payload["plan_item_id"] != "p1" ||
		evs[0].Payload["category"] != wire.FrontendErrInvalidClientEvent {
		t.Fatalf("frontend_error events %+v", evs)
	}
}

// Once the primary decided, a later decision is INVALID_CLIENT_EVENT, and
// so is one for an item the gate never had.
func TestLateAndUnknownDecisionsAreRejected(t *testing.T) {
	f := &fakeFront{answers: []wire.PlanDecision{{Decision: wire.DecisionAllow}}}
	g := NewGate(GateConfig{Policy: Standard{}, Frontend: f, Rules: askAll()})
	plan := &wire.Plan{Items: []wire.PlanItem{item("p1", "fs", "write")}}
	r, err := g.Decide(context.Background(), cc, plan)
	if err != nil || !r[0].Allowed {
		t.Fatalf("Decide = %+v, %v", r, err)
	}
	out := g.Submit("s", "second", []wire.PlanDecision{
		{PlanItemID: "p1", Decision: wire.DecisionDeny},
		{PlanItemID: "nope", Decision: wire.DecisionAllow},
	})
	for _, o := range out {
		if o.Accepted || o.Category != wire.FrontendErrInvalidClientEvent {
			t.Errorf("outcome %+v, want rejected with %s", o, wire.FrontendErrInvalidClientEvent)
		}
	}
	if evs := f.kinds(wire.EventFrontendError); len(evs) != 2 || evs[0].Payload["connection"] != "second" {
		t.Errorf("frontend_error events %+v", evs)
	}
}

// A decision the kernel refuses for its content leaves the item pending:
// the primary's answer still decides it.
func TestRefusedSecondDecisionLeavesItemPending(t *testing.T) {
	h := newHeldFront()
	tools := map[string]wire.ToolSchema{"write": {Name: "write", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}, "required": []any{"key"},
	}}}
	g := NewGate(GateConfig{Policy: Standard{}, Frontend: h, Rules: askAll(), Tools: tools})
	plan := &wire.Plan{Items: []wire.PlanItem{item("p1", "fs", "write")}}
	done, _ := decideAsync(g, plan)
	<-h.asked
	out := g.Submit("s", "second", []wire.PlanDecision{{PlanItemID: "p1", Decision: wire.DecisionAllow, CorrectedInput: json.RawMessage(`{"key":1}`)}})
	if out[0].Accepted || out[0].Category != CategoryInvalidCorrection {
		t.Fatalf("outcome %+v, want refused with %s", out[0], CategoryInvalidCorrection)
	}
	h.release <- wire.PermissionResult{Decisions: []wire.PlanDecision{{PlanItemID: "p1", Decision: wire.DecisionAllow}}}
	if r := <-done; !r[0].Allowed || len(r[0].Input) != 0 {
		t.Fatalf("rulings %+v, want the primary's plain ALLOW", r)
	}
	if evs := frontendErrors(&h.fakeFront); len(evs) != 0 {
		t.Errorf("frontend_error events %+v, want none", evs)
	}
}

// After a refused answer the item is asked about again; a second
// connection's decision during that ask decides it, and nothing asks a
// third time.
func TestSecondConnectionDecidesDuringReAsk(t *testing.T) {
	h := newHeldFront()
	g := NewGate(GateConfig{Policy: Standard{}, Frontend: h, Rules: askAll()})
	plan := &wire.Plan{Items: []wire.PlanItem{item("p1", "fs", "write")}}
	done, wg := decideAsync(g, plan)
	<-h.asked
	// The primary's ALWAYS cannot be kept (no store): refused, still pending.
	h.release <- wire.PermissionResult{Decisions: []wire.PlanDecision{{PlanItemID: "p1", Decision: wire.DecisionAllow, Scope: wire.ScopeAlways}}}
	<-h.asked // asked again
	if out := g.Submit("s", "second", []wire.PlanDecision{{PlanItemID: "p1", Decision: wire.DecisionDeny}}); !out[0].Accepted {
		t.Fatalf("outcome %+v, want accepted", out[0])
	}
	h.release <- wire.PermissionResult{Decisions: []wire.PlanDecision{{PlanItemID: "p1", Decision: wire.DecisionAllow}}}
	if r := <-done; r[0].Allowed {
		t.Fatalf("rulings %+v, want the second connection's DENY", r)
	}
	wg.Wait()
	select {
	case p := <-h.asked:
		t.Fatalf("asked a third time about %+v", p.Items)
	default:
	}
}
