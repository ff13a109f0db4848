package props

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// The timeout judgement fails a kernel that gives up early, and credits
// only what the process spent waiting for a CPU: a request 20 ms after a
// hang of 100 ms is early unless the machine took 30 ms or more out of it.
func TestEarlyGiveUpFailsUnlessTheMachineWasBusy(t *testing.T) {
	c := chainCase{Point: wire.PointPreModelCall, Subs: []subscriber{{ID: "H1", Mode: wire.ModeObserve, Behaviour: "hangs", TimeoutMS: 100}}}
	for _, tc := range []struct {
		waited    time.Duration // the process's CPU wait while the hang was out
		wantEarly bool
	}{{0, true}, {20 * time.Millisecond, true}, {40 * time.Millisecond, false}} {
		now, wait := time.Unix(0, 0), time.Duration(0)
		w := fakes.NewWorld()
		w.Log = calllog.New(func() time.Time { return now })
		w.Log.SetCPUWait(func() time.Duration { return wait })
		r := &run{c: c, session: "s", world: w, wait0: w.Log.CPUWait()}
		w.Log.Begin(calllog.Request, wire.MethodHookDispatch, "s", "t1", "hook", nil, wire.HookDispatchParams{
			Point: c.Point, Subscriber: "H1", Mode: wire.ModeObserve, Payload: wire.HookPayload{Variant: c.Point}})
		now, wait = now.Add(20*time.Millisecond), tc.waited
		w.Log.Begin(calllog.Request, wire.MethodModelStream, "s", "t1", "model", nil, nil)
		early := slices.ContainsFunc(r.check(), func(s string) bool { return strings.Contains(s, "gave up on H1") })
		if early != tc.wantEarly {
			t.Errorf("CPU wait %v: judged early %v, want %v (%q)", tc.waited, early, tc.wantEarly, r.check())
		}
		w.Close()
	}
}
