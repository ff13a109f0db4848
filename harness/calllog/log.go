package calllog

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Kinds of entries.
const (
	Request      = "request"      // kernel → harness request
	Notification = "notification" // kernel → harness notification
)

// Entry is one recorded message.
type Entry struct {
	Seq       int
	Kind      string
	Method    string
	SessionID string
	TurnID    string
	// Label is the short, human reading used in ordering checks and in
	// failure output, e.g. "hook pre-model-call O1" or "invoke read".
	Label  string
	Start  time.Time
	End    time.Time // zero while unanswered
	EndSeq int       // sequence number of the answer; 0 while unanswered
	// StartCPUWait and EndCPUWait read the log's CPU-wait clock (SetCPUWait)
	// at Start and End; both zero when it has none.
	StartCPUWait, EndCPUWait time.Duration
	Params                   json.RawMessage
	Result                   json.RawMessage
	Err                      string
	// Value is the decoded params, for checks.
	Value any
}

// Answered reports whether the harness answered the request.
func (e *Entry) Answered() bool { return e.EndSeq != 0 }

// Log is safe for concurrent use.
type Log struct {
	mu      sync.Mutex
	t0      time.Time
	seq     int
	entries []*Entry
	now     func() time.Time
	cpuWait func() time.Duration
}

// SetCPUWait gives the log a clock of how long the kernel and the harness
// have waited for a CPU (driver.Kernel.CPUWait), read at every arrival and
// answer from then on: an upper time bound between two messages does not
// count what a busy machine took out of it. Only scenarios with such a
// bound set it; reading the clock costs a few file reads.
func (l *Log) SetCPUWait(f func() time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cpuWait = f
}

// CPUWait reads the log's CPU-wait clock; 0 without one.
func (l *Log) CPUWait() time.Duration {
	l.mu.Lock()
	f := l.cpuWait
	l.mu.Unlock()
	if f == nil {
		return 0
	}
	return f()
}

// New starts an empty log; now is injectable for tests.
func New(now func() time.Time) *Log {
	if now == nil {
		now = time.Now
	}
	return &Log{now: now, t0: now()}
}

// Begin records an arriving message and returns its entry.
func (l *Log) Begin(kind, method, session, turn, label string, params json.RawMessage, value any) *Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e := &Entry{Seq: l.seq, Kind: kind, Method: method, SessionID: session, TurnID: turn,
		Label: label, Start: l.now(), Params: params, Value: value}
	if l.cpuWait != nil {
		e.StartCPUWait = l.cpuWait()
	}
	if kind == Notification {
		e.End, e.EndSeq, e.EndCPUWait = e.Start, e.Seq, e.StartCPUWait
	}
	l.entries = append(l.entries, e)
	return e
}

// Finish records the harness's answer to a request.
func (l *Log) Finish(e *Entry, result any, err error) {
	var raw json.RawMessage
	if err == nil && result != nil {
		// The transport marshals the answer again and sends a -32603 error
		// when it cannot; the log says the same, never an empty success.
		raw, err = json.Marshal(result)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e.End, e.EndSeq, e.Result = l.now(), l.seq, raw
	if l.cpuWait != nil {
		e.EndCPUWait = l.cpuWait()
	}
	if err != nil {
		e.Err = err.Error()
	}
}

// Entries is a snapshot in arrival order.
func (l *Log) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Entry, len(l.entries))
	for i, e := range l.entries {
		out[i] = *e
	}
	return out
}

// Select returns the snapshot entries that match. It copies only those:
// checks select a few entries of a long log many times over (the fuzz
// invariants, issue 25). match sees a copy, with the log locked, so it
// must not call the log.
func (l *Log) Select(match func(*Entry) bool) []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Entry
	for _, p := range l.entries {
		e := *p
		if match(&e) {
			out = append(out, e)
		}
	}
	return out
}

// Seq counts what the log has recorded, arrivals and answers: the same
// count means the same log.
func (l *Log) Seq() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// Since is how long after the log started t was.
func (l *Log) Since(t time.Time) time.Duration { return t.Sub(l.t0) }

// Lines renders the log for failure output, at most max lines (the last
// ones, where the divergence usually is); max <= 0 means all. Only the lines
// kept are formatted, so a scenario that recorded a flood costs no more.
func (l *Log) Lines(max int) []string {
	l.mu.Lock()
	from, total := 0, len(l.entries)
	if max > 0 && total > max {
		from = total - max
	}
	es := make([]Entry, total-from)
	for i, e := range l.entries[from:] {
		es[i] = *e
	}
	l.mu.Unlock()
	var lines []string
	if from > 0 {
		lines = append(lines, fmt.Sprintf("… %d earlier entries", from))
	}
	for _, e := range es {
		mark := "→"
		if e.Kind == Notification {
			mark = "•"
		}
		s := fmt.Sprintf("#%-3d %8.1fms %s %-22s %s", e.Seq, float64(l.Since(e.Start).Microseconds())/1000, mark, e.Label, ids(e))
		if e.Kind == Request {
			switch {
			case !e.Answered():
				s += "  (unanswered)"
			case e.Err != "":
				s += "  ⇐ error: " + e.Err
			default:
				s += fmt.Sprintf("  ⇐ #%d", e.EndSeq)
			}
		}
		lines = append(lines, s)
	}
	return lines
}

func ids(e Entry) string {
	var parts []string
	if e.SessionID != "" {
		parts = append(parts, "session="+e.SessionID)
	}
	if e.TurnID != "" {
		parts = append(parts, "turn="+e.TurnID)
	}
	return strings.Join(parts, " ")
}

// Tail returns a snapshot of the last max entries (all when max <= 0) and
// how many earlier entries it left out.
func (l *Log) Tail(max int) ([]Entry, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	from := 0
	if max > 0 && len(l.entries) > max {
		from = len(l.entries) - max
	}
	out := make([]Entry, len(l.entries)-from)
	for i, e := range l.entries[from:] {
		out[i] = *e
	}
	return out, from
}
