package pluginconform

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"pgregory.net/rapid"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	hookv1 "github.com/agentconform/conform/api/gen/pluggableharness/hook/v1"
	"github.com/agentconform/conform/pluginconform/hookgen"
)

var (
	hookIDs = []string{"PL-27", "PL-28", "PL-29", "PL-30"}
	modes   = []hookv1.HookMode{hookv1.HookMode_HOOK_MODE_OBSERVE, hookv1.HookMode_HOOK_MODE_TRANSFORM, hookv1.HookMode_HOOK_MODE_VETO}
)

// checkHooks dispatches generated payloads to every point the plugin
// declares, in every mode (PL-27..PL-30), and cancels one dispatch per
// point (PL-31).
func (r *run) checkHooks(ctx context.Context) {
	var points []commonv1.HookPoint
	for _, p := range r.schema.GetSupportedHookPoints() {
		if hookgen.Payload(p) != nil && !slices.Contains(points, p) {
			points = append(points, p)
		}
	}
	if len(points) == 0 {
		s := r.rec.Scenario("plugin/hooks", "hook subscriber", append(hookIDs, "PL-31")...)
		for _, id := range append(hookIDs, "PL-31") {
			s.NotReached("hook dispatch", "the plugin declares no supported_hook_points, so it subscribes to no hook", id)
		}
		r.rec.Add(s)
		return
	}
	for _, p := range points {
		for _, m := range modes {
			r.dispatchProperty(ctx, p, m)
		}
	}
	r.cancelDispatches(ctx, points)
}

func pointWord(p commonv1.HookPoint) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(p.String(), "HOOK_POINT_")), "_", "-")
}

func modeWord(m hookv1.HookMode) string {
	return strings.ToLower(strings.TrimPrefix(m.String(), "HOOK_MODE_"))
}

// dispatchProperty sends generated payloads of one point in one mode.
func (r *run) dispatchProperty(ctx context.Context, p commonv1.HookPoint, m hookv1.HookMode) {
	name := pointWord(p) + " in " + modeWord(m) + " mode"
	s := r.rec.Scenario("plugin/hooks/"+pointWord(p)+"/"+modeWord(m), "dispatch "+name, "PL-27", "PL-30")
	defer r.rec.Add(s)
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	gen := hookgen.Payload(p)
	var slow, firstError string
	errorsSeen, answered := 0, 0
	res := r.property(r.opt.HookCases, func(t *rapid.T) (verdicts, any, string, string) {
		if slow != "" {
			return nil, nil, "", ""
		}
		payload := gen.Draw(t, "payload")
		shown := map[string]any{"payload": hookgen.Variant(payload)}
		c, cancel := context.WithTimeout(ctx, r.opt.HookTimeout)
		start := time.Now()
		resp, err := r.plugin.Hook.DispatchHook(c, &hookv1.DispatchHookRequest{Payload: payload, Mode: m})
		took := time.Since(start)
		cancel()
		r.secrets.SeeMsg("a DispatchHook answer", resp)
		r.secrets.SeeErr("a DispatchHook error", err)
		v := verdicts{}
		switch {
		case err == nil:
			answered++
			v["PL-30"] = ""
		case errors.Is(c.Err(), context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded:
			if d := r.died(err); d != "" {
				return nil, shown, "", "DispatchHook " + name + ": " + d
			}
			// A deadline miss is not shrunk: every try costs the deadline.
			slow = fmt.Sprintf("DispatchHook %s had no answer %v after the call, its deadline", name, took.Round(time.Millisecond))
			return nil, shown, "", ""
		default:
			if d := r.died(err); d != "" {
				return nil, shown, "", "DispatchHook " + name + ": " + d
			}
			errorsSeen++
			if errorsSeen == 1 {
				firstError = statusText(err)
				s.Observe("PL-27", fmt.Sprintf("the subscriber answered %s with an error: %s (an error is a subscriber failure the kernel handles by mode, not a wrong shape)", name, statusText(err)))
			}
			return v, shown, "", ""
		}
		judgeHookAnswer(m, payload, resp, v)
		return v, shown, "", ""
	})
	if res.Stopped != "" {
		s.Errorf("%s", res.Stopped)
	}
	if slow != "" {
		res.Failed["PL-30"] = found{Msg: slow}
	}
	// An error now and then is a subscriber failure the kernel handles by
	// mode; an error to every generated dispatch of a point the plugin
	// declares is a subscriber that never answers it with an outcome.
	if answered == 0 && errorsSeen > 0 && slow == "" && res.Stopped == "" {
		res.Failed["PL-27"] = found{Msg: fmt.Sprintf("the subscriber answered every one of %d dispatches of %s with an error (the first: %s): it declares the point but never answers it with an outcome", errorsSeen, name, firstError)}
	}
	unreached := map[string]string{
		"PL-27": "every dispatch was answered with an error",
		"PL-28": "judged in transform mode only",
		"PL-29": "judged in veto mode only",
		"PL-30": "no dispatch was answered",
	}
	ids := []string{"PL-27", "PL-30"}
	switch m {
	case hookv1.HookMode_HOOK_MODE_TRANSFORM:
		ids = append(ids, "PL-28")
	case hookv1.HookMode_HOOK_MODE_VETO:
		ids = append(ids, "PL-29")
	}
	res.Record(r.rec, s, fmt.Sprintf("%d dispatches of %s", res.Calls, name), ids, unreached)
}

// judgeHookAnswer checks an answer's shape against the mode (PL-27),
// a transform's changes (PL-28) and a veto's decision (PL-29).
func judgeHookAnswer(m hookv1.HookMode, in *hookv1.HookPayload, resp *hookv1.DispatchHookResponse, v verdicts) {
	got := "no outcome"
	switch resp.GetOutcome().(type) {
	case *hookv1.DispatchHookResponse_Observe:
		got = "ObserveAck"
	case *hookv1.DispatchHookResponse_Transform:
		got = "TransformResult"
	case *hookv1.DispatchHookResponse_Veto:
		got = "VetoResult"
	}
	want := map[hookv1.HookMode]string{
		hookv1.HookMode_HOOK_MODE_OBSERVE: "ObserveAck", hookv1.HookMode_HOOK_MODE_TRANSFORM: "TransformResult", hookv1.HookMode_HOOK_MODE_VETO: "VetoResult",
	}[m]
	if got != want {
		v["PL-27"] = fmt.Sprintf("a %s-mode dispatch of %s was answered with %s, not %s", modeWord(m), hookgen.Variant(in), got, want)
		return
	}
	v["PL-27"] = ""
	switch m {
	case hookv1.HookMode_HOOK_MODE_TRANSFORM:
		v["PL-28"] = hookgen.Changed(in, resp.GetTransform().GetPayload())
	case hookv1.HookMode_HOOK_MODE_VETO:
		d := resp.GetVeto().GetDecision()
		v["PL-29"] = ifBad(d != hookv1.HookDecision_HOOK_DECISION_ALLOW && d != hookv1.HookDecision_HOOK_DECISION_DENY,
			"a veto of %s decided %s, not ALLOW or DENY", hookgen.Variant(in), d)
	}
}

// cancelDispatches cancels one observe-mode dispatch per point as soon as
// it is sent, then checks that the subscriber still answers (PL-31).
func (r *run) cancelDispatches(ctx context.Context, points []commonv1.HookPoint) {
	s := r.rec.Scenario("plugin/hooks/cancel", "cancelled dispatches", "PL-31")
	defer r.rec.Add(s)
	s.Res.Requirements = []string{"PL-31"}
	reached := false
	for i, p := range points {
		if reason := r.restart(ctx); reason != "" {
			s.Errorf("%s", reason)
			return
		}
		if !r.cancelOneDispatch(ctx, p, i) {
			continue // answered before the cancel landed
		}
		reached = true
		step := "after a cancelled " + pointWord(p) + " dispatch, the subscriber still answers"
		next := hookgen.Payload(p).Example(int(r.stats.Seed%1e6) + 2000 + i)
		c2, cancel2 := context.WithTimeout(ctx, r.opt.HookTimeout)
		_, err := r.plugin.Hook.DispatchHook(c2, &hookv1.DispatchHookRequest{Payload: next, Mode: hookv1.HookMode_HOOK_MODE_OBSERVE})
		cancel2()
		switch {
		case err == nil:
			s.Pass(step, "PL-31")
		case r.died(err) != "":
			s.Fail(step, "after a cancelled "+pointWord(p)+" dispatch, "+r.died(err), "PL-31")
		case r.stillServing(ctx) == "":
			// Alive and answering: a slow or failing subscriber is PL-30's
			// and PL-27's business, not the cancel's.
			s.NotReached(step, "the next "+pointWord(p)+" dispatch failed ("+r.rpcProblem("DispatchHook", err)+"), but the plugin still answers GetSchema", "PL-31")
		default:
			s.Fail(step, "after a cancelled "+pointWord(p)+" dispatch, the plugin no longer answers: "+r.stillServing(ctx), "PL-31")
		}
	}
	if !reached {
		s.NotReached("a cancelled dispatch leaves the subscriber serving", fmt.Sprintf("every dispatch was answered before its cancel landed (%v to %v after it was sent): the subscriber never worked long enough to be cancelled", cancelDelays[0], cancelDelays[len(cancelDelays)-1]), "PL-31")
	}
	s.Unverifiable("the subscriber treats a cancel as normal control flow", "how the subscriber treats the cancel inside its own process is not observable", "PL-31")
}

// cancelDelays are how long after sending a dispatch conform cancels it:
// long enough that the subscriber has the call, short enough to land while
// it works, when it works that long.
var cancelDelays = []time.Duration{10 * time.Millisecond, 40 * time.Millisecond}

// cancelOneDispatch sends observe-mode dispatches of point p and cancels
// each a while after sending; true once a cancel landed (the call ended
// Canceled rather than answered).
func (r *run) cancelOneDispatch(ctx context.Context, p commonv1.HookPoint, i int) bool {
	for j, d := range cancelDelays {
		payload := hookgen.Payload(p).Example(int(r.stats.Seed%1e6) + 1000 + 10*i + j)
		c, cancel := context.WithCancel(ctx)
		var t *time.Timer
		_, err := r.plugin.Hook.DispatchHook(withOnSend(c, func() { t = time.AfterFunc(d, cancel) }),
			&hookv1.DispatchHookRequest{Payload: payload, Mode: hookv1.HookMode_HOOK_MODE_OBSERVE})
		if t != nil {
			t.Stop()
		}
		cancel()
		r.secrets.SeeErr("a DispatchHook error", err)
		if status.Code(err) == codes.Canceled {
			return true
		}
	}
	return false
}
