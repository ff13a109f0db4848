package mutants

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec"
)

var writeDir = flag.String("write-kill-matrix", "", "write kill-matrix.json and kill-matrix.md to this folder")

// Row is one mutant's line in the kill matrix.
type Row struct {
	Mutant   string   `json:"mutant"`
	Breaks   string   `json:"breaks"`
	Targets  []string `json:"targets"`
	KilledBy []string `json:"killed_by"` // "TA-02 fail (bounds.feature:24)"
	Killed   bool     `json:"killed"`
	// Collateral are requirements the mutant failed besides its targets,
	// each with the check that failed: a failing check blames only the
	// requirements it names, so this stays empty unless a mutant really
	// breaks more than it claims.
	Collateral []string `json:"collateral"`
	took       time.Duration
}

// Matrix is the whole kill matrix.
type Matrix struct {
	Mutants []Row `json:"mutants"`
	// Uncovered lists MUST/SHOULD requirements that scenarios cover but no
	// mutant targets: a scenario nobody has proven able to fail.
	Uncovered []string `json:"uncovered"`
	Survivors []string `json:"survivors"`
	// Variants are the legal variants; every one must pass.
	Variants []VariantRow `json:"variants"`
}

func run(t *testing.T, name string, parts loop.Parts, tags string, opts ...refkernel.Option) *report.Report {
	t.Helper()
	r, err := runReport(name, parts, tags, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// scenarioTimeout is conform run's default: the wall-clock scenarios hold
// a tool until ten seconds after the session started (five seconds of
// margin each side of a five-second bound), so 10 s called the reference
// kernel hung.
const scenarioTimeout = 20 * time.Second

// runReport runs the scenarios tagged tags (all when empty) against a kernel
// built from parts.
func runReport(name string, parts loop.Parts, tags string, opts ...refkernel.Option) (*report.Report, error) {
	return runner.Run(context.Background(), runner.Options{
		Launcher: launcher(name, parts, opts...), Tags: tags, Concurrency: 2, ScenarioTimeout: scenarioTimeout,
	})
}

func TestKillMatrix(t *testing.T) {
	if raceEnabled && *writeDir == "" {
		// Every mutant runs the suite end to end; under the race detector
		// that alone would take minutes. `make mutants` runs it without
		// -race, and the kernel's own packages are race-tested.
		t.Skip("the kill matrix runs without -race (make mutants)")
	}
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	mutants := all()
	vs := allVariants()
	// Every run — the reference, each mutant, each legal variant — goes
	// through one pool, longest first: the runs spend most of their time in
	// grace windows, retry waits and timeouts, not on the CPU, so several run
	// at once, and a minute-long @slow mutant started last (or the variants
	// started only after the last mutant) would leave the pool idle but for
	// it at the end (issue 25). What each run is judged on is unchanged.
	var (
		base  *report.Report
		bErr  error
		rows  = make([]Row, len(mutants))
		errs  = make([]error, len(mutants))
		vRows = make([]VariantRow, len(vs))
		vErrs = make([]error, len(vs))
		jobs  []func()
	)
	for i, mu := range mutants {
		if mu.Slow {
			jobs = append(jobs, func() { rows[i], errs[i] = judge(mu) })
		}
	}
	jobs = append(jobs, func() { base, bErr = runReport("reference", loop.DefaultParts(), "") })
	for i, mu := range mutants {
		if !mu.Slow {
			jobs = append(jobs, func() { rows[i], errs[i] = judge(mu) })
		}
	}
	for i, v := range vs {
		jobs = append(jobs, func() { vRows[i], vErrs[i] = judgeVariant(v) })
	}
	pool(8, jobs) // runs mostly wait on fakes and timers: more than the cores

	// The reference kernel must pass every requirement the suite covers,
	// or a "kill" would prove nothing.
	if bErr != nil {
		t.Fatalf("reference: %v", bErr)
	}
	var covered []string
	for _, q := range base.Requirements {
		if q.Status == report.NotTested || q.Status == report.Unverifiable {
			continue // nothing observable for a mutant to break (e.g. SA-16)
		}
		covered = append(covered, q.ID)
		if q.Status != report.Pass {
			t.Errorf("reference kernel: %s is %s: %s", q.ID, q.Status, q.Reason)
		}
	}

	var m Matrix
	targeted := map[string]bool{}
	for _, mu := range mutants {
		for _, id := range mu.Targets {
			if _, ok := cat.Get(id); !ok {
				t.Errorf("mutant %s targets unknown requirement %s", mu.Name, id)
			}
			targeted[id] = true
		}
	}
	for i, row := range rows {
		if errs[i] != nil {
			t.Errorf("mutant %s: %v", mutants[i].Name, errs[i])
			continue
		}
		t.Logf("%-45s %v", row.Mutant, row.took.Round(time.Millisecond))
		if !row.Killed {
			m.Survivors = append(m.Survivors, row.Mutant)
			t.Errorf("mutant %s (%s) survived the scenarios tagged @%s", row.Mutant, row.Breaks, strings.Join(row.Targets, ",@"))
		}
		m.Mutants = append(m.Mutants, row)
	}
	m.Uncovered = []string{}
	for _, id := range covered {
		q, _ := cat.Get(id)
		if (q.Class == "must" || q.Class == "should") && !targeted[id] {
			m.Uncovered = append(m.Uncovered, id)
			t.Errorf("%s [%s] is covered by scenarios but no mutant proves they can fail", id, q.Level)
		}
	}
	if m.Survivors == nil {
		m.Survivors = []string{}
	}
	m.Variants = checkVariants(t, vs, vRows, vErrs)
	// Said again last: CI shows a failed run's head and tail, and the
	// row above sits in the middle of some 250 lines.
	if len(m.Survivors) > 0 {
		t.Errorf("%d mutants survived: %s", len(m.Survivors), strings.Join(m.Survivors, ", "))
	}
	if *writeDir != "" {
		if err := write(*writeDir, m); err != nil {
			t.Fatal(err)
		}
	}
}

// judge runs one mutant against the scenarios tagged with its targets.
func judge(mu Mutant) (Row, error) {
	row, _, err := judgeReport(mu)
	return row, err
}

// judgeReport is judge with the report it judged.
func judgeReport(mu Mutant) (Row, *report.Report, error) {
	start := time.Now()
	tags := "@" + strings.Join(mu.Targets, ",@")
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: mutantLauncher(mu), Tags: tags, Concurrency: 2, ScenarioTimeout: scenarioTimeout,
		Slow: mu.Slow,
	})
	if err != nil {
		return Row{}, nil, err
	}
	row := Row{Mutant: mu.Name, Breaks: mu.Breaks, Targets: mu.Targets, KilledBy: []string{}, Collateral: collateral(r, mu.Targets)}
	if row.Collateral == nil {
		row.Collateral = []string{}
	}
	for _, q := range r.Requirements {
		if !slices.Contains(mu.Targets, q.ID) {
			continue
		}
		if q.Status == report.Fail || q.Status == report.Error {
			by := fmt.Sprintf("%s %s", q.ID, q.Status)
			if len(q.Scenarios) > 0 {
				by += " (" + strings.Join(q.Scenarios, ", ") + ")"
			}
			row.KilledBy = append(row.KilledBy, by)
		}
	}
	row.Killed = len(row.KilledBy) > 0
	row.took = time.Since(start)
	return row, r, nil
}

func write(dir string, m Matrix) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "kill-matrix.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var sb strings.Builder
	killed := 0
	for _, r := range m.Mutants {
		if r.Killed {
			killed++
		}
	}
	fmt.Fprintf(&sb, "# Mutant kill matrix\n\n%d of %d mutants killed. Each mutant swaps one reference-kernel part for a broken one; it is run against the scenarios tagged with its target requirements.\n\n", killed, len(m.Mutants))
	sb.WriteString("| mutant | breaks | targets | killed by |\n|---|---|---|---|\n")
	for _, r := range m.Mutants {
		by := strings.Join(r.KilledBy, "<br>")
		if !r.Killed {
			by = "**SURVIVED**"
		}
		if len(r.Collateral) > 0 {
			by += "<br>collateral: " + strings.Join(r.Collateral, "<br>")
		}
		fmt.Fprintf(&sb, "| `%s` | %s | %s | %s |\n", r.Mutant, r.Breaks, strings.Join(r.Targets, " "), by)
	}
	sb.WriteString(variantTable(m.Variants))
	if len(m.Uncovered) > 0 {
		fmt.Fprintf(&sb, "\nRequirements covered by scenarios but by no mutant: %s\n", strings.Join(m.Uncovered, ", "))
	}
	return os.WriteFile(filepath.Join(dir, "kill-matrix.md"), []byte(sb.String()), 0o644)
}

// pool runs jobs n at a time, in order of start, and waits for them all.
func pool(n int, jobs []func()) {
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, job := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			job()
		}()
	}
	wg.Wait()
}

// checkVariants fails the test for every legal variant that was blamed (or
// could not be run) and returns the variants' rows.
func checkVariants(t *testing.T, vs []Variant, rows []VariantRow, errs []error) []VariantRow {
	t.Helper()
	out := []VariantRow{}
	for i, row := range rows {
		if errs[i] != nil {
			t.Errorf("variant %s: %v", vs[i].Name, errs[i])
			continue
		}
		t.Logf("variant %-37s %v", row.Variant, row.took.Round(time.Millisecond))
		if !row.Passed {
			t.Errorf("legal variant %s (%s) was blamed: %s", row.Variant, row.Reading, strings.Join(row.Blamed, "; "))
		}
		out = append(out, row)
	}
	return out
}
