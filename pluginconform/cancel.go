package pluginconform

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/pluginconform/schemagen"
)

// cancelTries is how many generated calls conform tries for one that is
// still running after its first event.
const cancelTries = 10

// checkCancel cancels a call of a streaming (or interactive) operation
// after its first event, and checks that the plugin keeps serving and
// that no process it started for the call outlives the cancel (PL-22).
// What the plugin sends after the cancel never reaches conform (gRPC drops
// it), so the partial-mutation report and the absence of a made-up success
// are the requirement's unverifiable clause.
func (r *run) checkCancel(ctx context.Context, op *toolv1.ToolSchema) {
	interactive := op.GetKind() == toolv1.ToolKind_TOOL_KIND_INTERACTIVE
	if !op.GetStreaming() && !(interactive && r.blocked[op.GetName()]) {
		return // nothing to cancel mid-stream: the call is one answer
	}
	s := r.rec.Scenario("plugin/cancel/"+op.GetName(), "cancel "+op.GetName()+" mid-stream", "PL-22")
	defer r.rec.Add(s)
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	// Every try is a cancel: a fault that shows only when the cancel lands
	// while the operation still works needs more than one chance.
	gen := schemagen.Args(op.GetInputSchema())
	landed := 0
	for try := 1; try <= cancelTries; try++ {
		args := gen.Example(int(r.stats.Seed%1e6) + try)
		mid, problem := r.cancelOnce(ctx, s, op, args)
		if problem != "" {
			s.Errorf("%s", problem)
			return
		}
		if mid {
			landed++
		}
		if slices.ContainsFunc(s.Res.Checks, func(c report.CheckResult) bool { return c.Status == report.Fail }) {
			return
		}
	}
	if landed == 0 {
		s.NotReached("a call cancelled mid-stream leaves the plugin serving", fmt.Sprintf("none of %d generated calls was still running after its first event", cancelTries), "PL-22")
	}
}

// cancelOnce makes one call and cancels it after its first event; mid is
// false when the call ended first.
func (r *run) cancelOnce(ctx context.Context, s *kit.Scenario, op *toolv1.ToolSchema, args map[string]any) (mid bool, problem string) {
	call, err := r.toolCall(op.GetName(), args)
	if err != nil {
		return false, err.Error()
	}
	before, _ := launch.Descendants(r.plugin.PID())
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := r.plugin.Tool.Invoke(cctx, &toolv1.InvokeRequest{Call: call})
	if err != nil {
		return false, r.rpcProblem("Invoke", err)
	}
	first := make(chan *toolv1.InvokeResponse, 1)
	failed := make(chan error, 1)
	go func() {
		resp, err := stream.Recv()
		if err != nil {
			failed <- err
			return
		}
		first <- resp
	}()
	interactive := op.GetKind() == toolv1.ToolKind_TOOL_KIND_INTERACTIVE
	wait := time.NewTimer(r.callTimeout(op))
	defer wait.Stop()
	var what string
	select {
	case resp := <-first:
		r.secrets.SeeMsg("an Invoke event of "+op.GetName(), resp)
		if terminal(resp.GetEvent()) {
			return false, ""
		}
		what = "after its first event (" + eventName(resp.GetEvent()) + ")"
	case err := <-failed:
		if d := r.died(err); d != "" {
			return false, "Invoke of " + op.GetName() + ": " + d
		}
		_ = err
		return false, "" // ended without events: PL-14's business
	case <-wait.C:
		if !interactive {
			return false, fmt.Sprintf("Invoke of %s with %s sent nothing within %v", op.GetName(), clip(jsonText(args), 300), r.callTimeout(op))
		}
		what = "while it waited for an answer"
	}
	now, canTell := launch.Descendants(r.plugin.PID())
	children := slices.DeleteFunc(now, func(p int) bool { return slices.Contains(before, p) })
	cancel()
	step := "after a cancel " + what + ", the plugin keeps serving"
	if problem := r.stillServing(ctx); problem != "" {
		s.Fail(step, fmt.Sprintf("cancelled %s of %s with %s; then %s", what, op.GetName(), clip(jsonText(args), 300), problem), "PL-22")
		return true, ""
	}
	s.Pass(step, "PL-22")
	step = "no process the plugin started for the call outlives the cancel"
	if !canTell {
		s.NotReached(step, "this platform cannot list a process's children", "PL-22")
		return true, ""
	}
	if left := r.outliving(children); len(left) > 0 {
		s.Fail(step, fmt.Sprintf("cancelled %s of %s with %s; %s still running %v later", what, op.GetName(), clip(jsonText(args), 300), strings.Join(left, ", "), r.childGrace()), "PL-22")
		return true, ""
	}
	s.Pass(step, "PL-22")
	return true, ""
}

// stillServing asks for the schema again: "" when the plugin answers.
func (r *run) stillServing(ctx context.Context) string {
	c, cancel := r.call(ctx)
	defer cancel()
	_, err := r.plugin.Tool.GetSchema(c, &toolv1.GetSchemaRequest{})
	if err == nil {
		return ""
	}
	if d := r.died(err); d != "" {
		return d
	}
	return r.rpcProblem("GetSchema", err)
}

func (r *run) childGrace() time.Duration {
	return time.Duration(float64(5*time.Second) * r.opt.Multiplier)
}

// outliving waits up to childGrace for the given processes to end and
// returns those still alive.
func (r *run) outliving(pids []int) []string {
	deadline := time.Now().Add(r.childGrace())
	for {
		var left []int
		for _, p := range pids {
			if launch.Alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			slices.Sort(left)
			var out []string
			for _, p := range left {
				out = append(out, fmt.Sprintf("process %d", p))
			}
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
}
