package steps

import (
	"testing"
	"time"
)

// The timeout multiplier stretches the suite's own durations, never below
// their nominal value.
func TestScale(t *testing.T) {
	for _, tt := range []struct {
		m    float64
		want time.Duration
	}{{0, time.Second}, {1, time.Second}, {0.5, time.Second}, {2.5, 2500 * time.Millisecond}} {
		if got := (&Env{TimeoutMultiplier: tt.m}).Scale(time.Second); got != tt.want {
			t.Errorf("Scale(1s) with multiplier %v = %v, want %v", tt.m, got, tt.want)
		}
	}
	var nilEnv *Env
	if got := nilEnv.Scale(time.Second); got != time.Second {
		t.Errorf("a nil Env scales 1s to %v", got)
	}
}
