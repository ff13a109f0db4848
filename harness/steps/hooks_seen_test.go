package steps

import (
	"errors"
	"testing"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// A coding agent whose hooks the bridge cannot see neither fails TA-10 and
// TA-18 for dispatching nothing nor passes "no hook was dispatched" for
// it: those checks are not reached. Points the bridge relays, and every
// kernel that is not the bridge, are judged as before.
func TestHookChecksNotReachedWhereTheBridgeSeesNoHook(t *testing.T) {
	scenario := func(readings map[string]string) *Scenario {
		return &Scenario{env: &Env{Info: wire.InitializeResult{Readings: readings}, Bridged: true}, World: fakes.NewWorld(), SessionID: "s-1", ran: true}
	}
	unwired := scenario(map[string]string{BridgeHookPoints: "none"})
	wired := scenario(map[string]string{BridgeHookPoints: "post-tool-call, pre-tool-call, session-end, session-start"})
	kernel := scenario(nil)
	// A wire kernel that declares the bridge's reading itself escapes
	// nothing: only the harness's own bridge says what it cannot see.
	pretender := &Scenario{env: &Env{Info: wire.InitializeResult{Readings: map[string]string{BridgeHookPoints: "none"}}}, World: fakes.NewWorld(), SessionID: "s-1", ran: true}
	var nr *notReachedError
	for name, err := range map[string]error{
		"dispatched once, no hooks wired":    unwired.dispatchedOnce(wire.PointSessionEnd, ""),
		"none dispatched, no hooks wired":    unwired.pointsNeverDispatched(`"pre-tool-call"`),
		"post-tool-call saw, no hooks wired": unwired.postToolCallSaw("read"),
		"none dispatched, point not relayed": wired.pointsNeverDispatched(`"pre-model-call"`),
		"dispatched once, point not relayed": wired.dispatchedOnce(wire.PointPreModelCall, ""),
		"session-end status, no hooks wired": unwired.sessionEndPayloadStatus(),
	} {
		if !errors.As(err, &nr) || !isGlue(err) {
			t.Errorf("%s: %v, want not reached, labelled glue", name, err)
		}
	}
	for name, err := range map[string]error{
		"dispatched once, relayed point":                              wired.dispatchedOnce(wire.PointSessionEnd, ""),
		"dispatched once, a wire kernel":                              kernel.dispatchedOnce(wire.PointSessionEnd, ""),
		"dispatched once, a wire kernel declaring bridge.hook_points": pretender.dispatchedOnce(wire.PointSessionEnd, ""),
		"session-end status, relayed point":                           wired.sessionEndPayloadStatus(),
		"session-end status, a wire kernel":                           kernel.sessionEndPayloadStatus(),
	} {
		if err == nil || errors.As(err, &nr) {
			t.Errorf("%s: %v, want a failure (nothing was dispatched)", name, err)
		}
	}
	if err := kernel.pointsNeverDispatched(`"pre-tool-call"`); err != nil {
		t.Errorf("a wire kernel that dispatched nothing: %v", err)
	}
}
