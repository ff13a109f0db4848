package steps

import (
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// Where the kernel's session clock started, on the harness's clock (TA-04,
// TA-19, A-09). The kernel's clock cannot start before session/run was sent
// (runAt), and under A-09 it starts at session-start, before the session's
// first message reaches the harness. The kernel also says when it started,
// in the started_at of its session_meta rows; that claim is used where it
// fits those two facts, so a clock on another machine or a wrong stamp never
// moves a mark outside them.

// kernelStart is the kernel's reported start, kept within [runAt, the
// arrival of the row that reports it]; ok is false when no row reports one.
func (s *Scenario) kernelStart(es []calllog.Entry, runAt time.Time) (time.Time, bool) {
	for _, e := range es {
		m, isMeta := e.Value.(wire.SessionMeta)
		if !isMeta || e.SessionID != s.SessionID {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, m.StartedAt)
		if err != nil {
			continue
		}
		switch {
		case at.Before(runAt):
			at = runAt
		case at.After(e.Start):
			at = e.Start
		}
		return at, true
	}
	return time.Time{}, false
}

// clockStartedBy is the latest moment by which the kernel's clock has
// certainly started: the session's first message, or the kernel's own mark
// when it says it started later. A harness deadline measured from here gives
// the kernel at least the time it asks for, whenever its clock started.
func (s *Scenario) clockStartedBy(es []calllog.Entry, runAt time.Time) (time.Time, bool) {
	var first time.Time
	for _, e := range es {
		if e.SessionID == s.SessionID {
			first = e.Start
			break
		}
	}
	if first.IsZero() {
		return time.Time{}, false
	}
	if k, ok := s.kernelStart(es, runAt); ok && k.After(first) {
		first = k
	}
	return first, true
}

// clockStartedAfter is the earliest moment the kernel's clock can have
// started: its own reported start where it has one, else session/run. A
// lower bound measured from here never asks more of the kernel than its
// bound does.
func (s *Scenario) clockStartedAfter() time.Time {
	s.limits.mu.Lock()
	runAt := s.limits.runAt
	s.limits.mu.Unlock()
	if k, ok := s.kernelStart(s.World.Log.Entries(), runAt); ok {
		return k
	}
	return runAt
}

// openAfterStart opens the gate d after the kernel's session clock has
// certainly started. It waits for the session's first message by polling
// the log (the mark orders nothing finer than the poll; the scenarios keep
// a margin of a second on each side of a deadline).
func (s *Scenario) openAfterStart(g *fakes.Gate, d time.Duration) {
	s.onRun = append(s.onRun, func(*driver.Kernel) {
		s.limits.mu.Lock()
		runAt := s.limits.runAt
		s.limits.mu.Unlock()
		go func() {
			defer g.Open()
			give := time.After(s.env.Scale(s.env.ScenarioTimeout))
			tick := time.NewTicker(2 * time.Millisecond)
			defer tick.Stop()
			for {
				if mark, ok := s.clockStartedBy(s.World.Log.Entries(), runAt); ok {
					time.Sleep(time.Until(mark.Add(d)))
					return
				}
				select {
				case <-tick.C:
				case <-give:
					return
				}
			}
		}()
	})
}
