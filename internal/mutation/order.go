package mutation

import (
	"encoding/json"
	"os"
	"slices"
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

// hangsFirst moves the mutants that timed out before to the front of
// order, keeping the order within both parts. A mutant that hangs holds
// its job for its timeout three times over (a timed-out run runs again
// with twice the time), several minutes, while it uses no CPU: started
// last it would end the campaign minutes after everything else, started
// first it waits beside the others. The order changes no verdict.
func hangsFirst(order []int, mutants []Mutant, hung map[string]bool) {
	if len(hung) == 0 {
		return
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ha, hb := hung[mutants[a].Key], hung[mutants[b].Key]
		switch {
		case ha && !hb:
			return -1
		case hb && !ha:
			return 1
		}
		return 0
	})
}
