package mutation

import (
	"runtime"
	"testing"
	"time"
)

func TestTimeoutFor(t *testing.T) {
	cores := runtime.NumCPU()
	cases := []struct {
		suite time.Duration
		jobs  int
		want  time.Duration
	}{
		{2 * time.Second, 1, minTimeout},                       // a fast suite still gets the floor
		{12 * time.Second, 1, 60 * time.Second},                // 5x
		{12 * time.Second, 2 * cores, 60 * time.Second},        // two runs per core: no slower
		{12 * time.Second, 4 * cores, 120 * time.Second},       // four per core: twice the time
		{1500 * time.Millisecond, 8 * cores, 30 * time.Second}, // stretched, still under the floor
	}
	for _, c := range cases {
		if got := timeoutFor(c.suite, c.jobs); got != c.want {
			t.Errorf("timeoutFor(%s, %d) = %s, want %s", c.suite, c.jobs, got, c.want)
		}
	}
}
