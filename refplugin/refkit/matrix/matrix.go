// Package matrix runs a provider category's kill matrix: the test binary
// checks each named variant or mutant in a process of its own ("<binary>
// check NAME" prints a Verdict), variants must pass clean, and each
// mutant must fail exactly the requirements it is listed to kill — no
// collateral — or, when listed as a survivor, fail nothing.
package matrix

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Verdict is what a check process prints.
type Verdict struct {
	Bad     []string          `json:"bad"`
	Passed  []string          `json:"passed"`
	Reasons map[string]string `json:"reasons"`
	Level   string            `json:"level"`
	Label   string            `json:"label"`
}

// Entry is one mutant (or variant, with no Kills and no Survives).
type Entry struct {
	Name     string
	Kills    []string
	Survives string
}

// CheckAll runs "<binary> check NAME" for each name, several at once.
func CheckAll(t *testing.T, names []string) map[string]Verdict {
	t.Helper()
	out := make(map[string]Verdict, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(os.Args[0], "check", name)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			b, err := cmd.Output()
			var v Verdict
			if err == nil {
				err = json.Unmarshal(b, &v)
			}
			if err != nil {
				t.Errorf("checking %s: %v\n%s", name, err, stderr.String())
				return
			}
			mu.Lock()
			out[name] = v
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// Variants checks that every variant fails nothing, and that together they
// pass every id in ids; it returns the ids no variant passed.
func Variants(t *testing.T, names []string, ids []string) []string {
	t.Helper()
	got := CheckAll(t, names)
	passed := map[string]bool{}
	for _, n := range names {
		v := got[n]
		for _, id := range v.Bad {
			t.Errorf("legal variant %s: %s %s", n, id, v.Reasons[id])
		}
		for _, id := range v.Passed {
			passed[id] = true
		}
	}
	var none []string
	for _, id := range ids {
		if !passed[id] {
			none = append(none, id)
		}
	}
	return none
}

// Kill checks every mutant and returns the matrix rows (markdown).
func Kill(t *testing.T, all []Entry) []string {
	t.Helper()
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = m.Name
	}
	got := CheckAll(t, names)
	var rows []string
	for _, m := range all {
		v, ok := got[m.Name]
		if !ok {
			continue
		}
		failed := strings.Join(v.Bad, ", ")
		if m.Survives != "" {
			if len(v.Bad) > 0 {
				t.Errorf("%s is listed as a survivor (%s) but conform failed %v", m.Name, m.Survives, v.Bad)
			}
			rows = append(rows, fmt.Sprintf("| %s | survives: %s | %s |", m.Name, m.Survives, dash(failed)))
			continue
		}
		for _, id := range m.Kills {
			if !slices.Contains(v.Bad, id) {
				t.Errorf("%s survived: %s", m.Name, v.Reasons[id])
			}
		}
		for _, id := range v.Bad {
			if !slices.Contains(m.Kills, id) {
				t.Errorf("%s: collateral failure of %s: %s", m.Name, id, v.Reasons[id])
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s |", m.Name, strings.Join(m.Kills, ", "), dash(failed)))
	}
	return rows
}

// Write writes the matrix to path.
func Write(path, title, intro string, rows []string) error {
	body := "# " + title + "\n\n" + intro + "\n\n| mutant | must fail | failed or erred |\n|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
	return os.WriteFile(path, []byte(body), 0o644)
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
