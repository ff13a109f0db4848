package clock

import (
	"testing"
	"time"
)

func TestManualAdvanceWakesDueWaiters(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewManual(start)
	early, late := m.After(time.Second), m.After(3*time.Second)
	m.Advance(2 * time.Second)
	select {
	case got := <-early:
		if !got.Equal(start.Add(2 * time.Second)) {
			t.Fatalf("early fired at %v", got)
		}
	default:
		t.Fatal("1s waiter did not fire after 2s")
	}
	select {
	case <-late:
		t.Fatal("3s waiter fired after 2s")
	default:
	}
	m.Advance(time.Second)
	select {
	case <-late:
	default:
		t.Fatal("3s waiter did not fire after 3s")
	}
	if got := m.Now().Sub(start); got != 3*time.Second {
		t.Fatalf("elapsed %v", got)
	}
}

func TestManualAfterZeroFiresAtOnce(t *testing.T) {
	m := NewManual(time.Unix(0, 0))
	select {
	case <-m.After(0):
	default:
		t.Fatal("After(0) did not fire")
	}
}
