package mutation

import (
	"cmp"
	"encoding/json"
	"os"
	"slices"
	"time"
)

// timedOutBefore reads the keys of the mutants an earlier campaign's
// mutation.json reports timed out; a missing or unreadable file gives
// none.
func timedOutBefore(path string) map[string]bool {
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var r struct {
		Mutants []struct {
			Key    string `json:"key"`
			Status Status `json:"status"`
		} `json:"mutants"`
	}
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	out := map[string]bool{}
	for _, m := range r.Mutants {
		if m.Status == TimedOut {
			out[m.Key] = true
		}
	}
	return out
}

// longestFirst sorts order by how long each mutant is expected to take,
// longest first, those built alone (built) before all others: such a build
// takes 8 CPU s, 40-170 s of wall time at a campaign's load, and in a
// campaign from scratch three of the last ten mutants judged, ER-01's
// minute-long waits, began with one. splitWaiting, which keeps the order,
// then puts them first in their queue.
func longestFirst(order []int, scopes []judgeScope, built func(int) bool) {
	slices.SortStableFunc(order, func(a, b int) int {
		if ba, bb := built(a), built(b); ba != bb {
			if ba {
				return -1
			}
			return 1
		}
		return cmp.Compare(scopes[b].expect, scopes[a].expect)
	})
}

// splitHung takes the mutants that timed out before out of order, keeping
// the order of both parts. They are judged by workers of their own
// (hungJobs), beside the campaign's jobs: a mutant that hangs holds its
// worker for its timeout three times over (a timed-out run runs again with
// twice the time), minutes, while it uses no CPU, so among the campaign's
// jobs it would leave a core idle, and started last it would end the
// campaign minutes after everything else. Where the mutant was judged
// changes no verdict.
func splitHung(order []int, mutants []Mutant, hung map[string]bool) (hangs, rest []int) {
	for _, i := range order {
		if hung[mutants[i].Key] {
			hangs = append(hangs, i)
		} else {
			rest = append(rest, i)
		}
	}
	return hangs, rest
}

// hungJobs is how many workers judge the n mutants that timed out before:
// all at once, up to twice the campaign's jobs. One that no longer hangs
// loads the cores like any other mutant; its timeout, derived for the
// campaign's jobs, is then met by its second run's, twice as long.
func hungJobs(n, jobs int) int {
	return min(n, 2*jobs)
}

// waitingAt is how long a mutant's runs must be expected to take against
// the unmutated kernel for it to be judged among the waiting ones
// (splitWaiting): ER-01's @slow scenario sleeps through a minute of
// backoff on 1.5 CPU s, and every mutant it reaches that survives waits
// that minute out.
const waitingAt = 30 * time.Second

// splitWaiting takes the mutants expected to wait at least waitingAt out
// of order, keeping the order of both parts. They are judged by workers of
// their own (waitJobs) beside the campaign's jobs: in a campaign from
// scratch 162 such mutants held the workers for 76% of their time and
// used 870 of its 1,632 CPU s, so among the campaign's jobs they left the
// cores idle while the CPU-bound mutants queued behind them. The
// campaign's own workers join them once the other mutants are judged.
// Where a mutant is judged changes no verdict.
func splitWaiting(order []int, scopes []judgeScope) (waiting, rest []int) {
	for _, i := range order {
		if scopes[i].expect >= waitingAt {
			waiting = append(waiting, i)
		} else {
			rest = append(rest, i)
		}
	}
	return waiting, rest
}

// waitJobs is how many workers judge the n waiting mutants: as many as the
// campaign's jobs.
func waitJobs(n, jobs int) int {
	return min(n, jobs)
}
