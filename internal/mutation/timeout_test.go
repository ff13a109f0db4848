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
		{2 * time.Second, 1, minTimeout},                 // a fast suite still gets the floor
		{20 * time.Second, 1, 100 * time.Second},         // 5x
		{20 * time.Second, 2 * cores, 100 * time.Second}, // two runs per core: no slower
		{20 * time.Second, 4 * cores, 200 * time.Second}, // four per core: twice the time
		{1500 * time.Millisecond, 8 * cores, minTimeout}, // stretched, still under the floor
	}
	for _, c := range cases {
		if got := timeoutFor(c.suite, c.jobs); got != c.want {
			t.Errorf("timeoutFor(%s, %d) = %s, want %s", c.suite, c.jobs, got, c.want)
		}
	}
}

// A run of the scenarios reaching a mutant is timed out by their own time,
// not the whole suite's: the longest scenario is not stretched by load,
// the others and the start are.
func TestRunTimeout(t *testing.T) {
	cores := runtime.NumCPU()
	cases := []struct {
		longest, rest time.Duration
		jobs          int
		want          time.Duration
	}{
		{time.Second, 0, 1, minTimeout},                                   // quick scenarios: the floor
		{60 * time.Second, 3 * time.Second, 1, 320 * time.Second},         // 5x (60 + 3 + 1)
		{60 * time.Second, 3 * time.Second, 8 * cores, 380 * time.Second}, // 5x (60 + 4 x (3 + 1))
	}
	for _, c := range cases {
		if got := runTimeout(c.longest, c.rest, c.jobs); got != c.want {
			t.Errorf("runTimeout(%s, %s, %d) = %s, want %s", c.longest, c.rest, c.jobs, got, c.want)
		}
	}
}
