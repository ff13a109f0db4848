package calllog

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// ticker is a clock that advances one millisecond per reading.
func ticker() func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

func TestLinesKeepsTheTail(t *testing.T) {
	l := New(ticker())
	for i := range 10 {
		l.Begin(Notification, "event", "s1", "", fmt.Sprintf("event %d", i), nil, nil)
	}
	e := l.Begin(Request, "model/stream", "s1", "t1", "model/stream", nil, nil)
	l.Finish(e, map[string]int{"n": 1}, nil)
	all := l.Lines(0)
	if len(all) != 11 {
		t.Fatalf("Lines(0) = %d lines, want 11", len(all))
	}
	tail := l.Lines(3)
	if len(tail) != 4 || tail[0] != "… 8 earlier entries" {
		t.Fatalf("Lines(3) = %q", tail)
	}
	for i, s := range tail[1:] {
		if s != all[8+i] {
			t.Errorf("tail line %d = %q, want %q", i, s, all[8+i])
		}
	}
	if !strings.Contains(tail[3], "⇐ #12") {
		t.Errorf("answered request line %q", tail[3])
	}
}

func TestFinishRecordsWhatCouldNotBeRecorded(t *testing.T) {
	l := New(ticker())
	e := l.Begin(Request, "tool/invoke", "s1", "t1", "invoke read", nil, nil)
	l.Finish(e, map[string]any{"f": func() {}}, nil)
	if got := l.Entries()[0]; got.Err == "" || got.Result != nil {
		t.Errorf("an answer that does not marshal was recorded as %q / %s", got.Err, got.Result)
	}
	e = l.Begin(Request, "tool/invoke", "s1", "t1", "invoke read", nil, nil)
	l.Finish(e, nil, errors.New("held"))
	if got := l.Entries()[1]; got.Err != "held" {
		t.Errorf("error answer recorded as %q", got.Err)
	}
}
