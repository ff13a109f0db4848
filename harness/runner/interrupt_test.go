package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
)

// An interrupted run starts nothing new, abandons the running sessions, and
// comes back with a report marked interrupted in which every scenario
// without a verdict is not_run, not an error of the kernel. The kernel hangs
// on every session, so only the interrupt can end the run; the scenario
// timeout is long so that no verdict comes from it.
func TestInterruptedRun(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	stop, interrupt := context.WithCancel(context.Background())
	opt := Options{
		Launcher: hostileLauncher("hang", pidfile), Concurrency: 4,
		ScenarioTimeout: time.Minute, Stop: stop,
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		interrupt()
	}()
	type result struct {
		r   *report.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := Run(context.Background(), opt)
		done <- result{r, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(2 * time.Minute): // a hang guard, generous for a busy machine (issue 25)
		t.Fatal("the interrupted run did not come back within 2 min")
	}
	<-stop.Done()
	if !errors.Is(res.err, ErrIncomplete) {
		t.Fatalf("Run returned %v, want ErrIncomplete", res.err)
	}
	r := res.r
	if !r.Interrupted {
		t.Error("the report is not marked interrupted")
	}
	if r.Compliance.Level != report.LevelNone || r.Compliance.Complete {
		t.Errorf("an interrupted run claims compliance: %+v", r.Compliance)
	}
	for _, s := range r.Scenarios {
		if s.Status != report.NotRun {
			t.Errorf("%s: %s (%s), want not_run", s.Ref(), s.Status, s.Failure)
		}
	}
	for _, q := range r.Requirements {
		if q.Status == report.Error || q.Status == report.Fail {
			t.Errorf("%s is %s after an interrupt: %s", q.ID, q.Status, q.Reason)
		}
	}
	pids := readPIDs(t, pidfile)
	// The pool started at most one kernel per worker, plus the one that
	// answered initialize; nothing was launched for the unrun scenarios.
	if len(pids) > opt.Concurrency+1 {
		t.Errorf("%d kernels were started; an interrupt must stop new launches (at most %d)", len(pids), opt.Concurrency+1)
	}
	expectGone(t, pids)
}

// A run whose context ends while it reads the suite starts no kernel: a
// run stopped just before go test's -timeout (conformtest) has no time to
// start one and shut it down again.
func TestStoppedBeforeAKernelStarts(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("the test's deadline is near"))
	launched := false
	r, err := Run(ctx, Options{Launcher: launchSpy{&launched}})
	if err == nil || !strings.Contains(err.Error(), "stopped before any kernel started: the test's deadline is near") {
		t.Errorf("Run = %v, want stopped before any kernel started, with the cause", err)
	}
	if r != nil || launched {
		t.Errorf("report %v, launched %v: want neither", r, launched)
	}
}
