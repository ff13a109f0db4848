package mutants

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/server"
)

// Variant is a legal variant of the reference kernel: a correct kernel that
// takes another reasonable reading of a point the specification leaves
// open, or that is slower but still correct. The suite must not blame it:
// every requirement it does not opt out of by declaration must pass (or be
// skipped, unverifiable or not tested), never fail or end in error. Where a
// mutant proves the suite can fail, a variant proves it does not fail what
// it should not.
type Variant struct {
	Name string
	// Reading says what the variant does differently and why that is legal
	// (the ambiguity A-xx or the requirement's own words).
	Reading string
	// Apply swaps parts of the reference kernel; nil keeps them all.
	Apply func(loop.Parts) loop.Parts
	// Options tune the kernel, e.g. refkernel.WithDeclaration to declare the
	// variant's reading or leave a capability out.
	Options []refkernel.Option
	// Tags limits the scenarios run; empty runs the whole suite.
	Tags string
	// Timeout is each scenario's timeout; zero means 10 s. A variant that is
	// slow on purpose (a long deadline) needs more.
	Timeout time.Duration
}

// VariantRow is one variant's line in the kill matrix's second table.
type VariantRow struct {
	Variant string   `json:"variant"`
	Reading string   `json:"reading"`
	Passed  bool     `json:"passed"`
	Blamed  []string `json:"blamed"` // "TA-29 fail (concurrency.feature:40: ...)"
	took    time.Duration
}

var variants []Variant

// registerVariant adds legal variants; each area's test file calls it from
// init.
func registerVariant(vs ...Variant) {
	regMu.Lock()
	defer regMu.Unlock()
	variants = append(variants, vs...)
}

func allVariants() []Variant {
	regMu.Lock()
	defer regMu.Unlock()
	out := append([]Variant(nil), variants...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// variantLauncher serves a variant in-process, over the wire.
func variantLauncher(v Variant) adapter.Launcher {
	parts := loop.DefaultParts()
	if v.Apply != nil {
		parts = v.Apply(parts)
	}
	return adapter.InProcess{Name: "variant " + v.Name, Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		return server.Serve(ctx, refkernel.New(parts, v.Options...), in, out)
	}}
}

// judgeVariant runs a variant and lists every requirement it was blamed on.
func judgeVariant(v Variant) (VariantRow, error) {
	start := time.Now()
	timeout := v.Timeout
	if timeout == 0 {
		timeout = scenarioTimeout
	}
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: variantLauncher(v), Tags: v.Tags, Concurrency: 2, ScenarioTimeout: timeout,
	})
	if err != nil {
		return VariantRow{}, err
	}
	row := VariantRow{Variant: v.Name, Reading: v.Reading, Blamed: []string{}}
	for _, q := range r.Requirements {
		if q.Status == report.Fail || q.Status == report.Error {
			row.Blamed = append(row.Blamed, fmt.Sprintf("%s %s (%s)", q.ID, q.Status, q.Reason))
		}
	}
	row.Passed = len(row.Blamed) == 0
	row.took = time.Since(start)
	return row, nil
}

// collateral lists the requirements a mutant failed besides its targets,
// each with the check that failed.
func collateral(r *report.Report, targets []string) []string {
	var out []string
	for _, q := range r.Requirements {
		if q.Status != report.Fail && q.Status != report.Error {
			continue
		}
		skip := false
		for _, t := range targets {
			if t == q.ID {
				skip = true
			}
		}
		if skip {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s (%s)", q.ID, q.Status, q.Reason))
	}
	return out
}

// variantTable renders the second table of kill-matrix.md.
func variantTable(rows []VariantRow) string {
	var sb strings.Builder
	passed := 0
	for _, r := range rows {
		if r.Passed {
			passed++
		}
	}
	fmt.Fprintf(&sb, "\n## Legal variants\n\n%d of %d legal variants pass. Each is a correct kernel with another reading of an open point, or slower but correct; the suite must blame none of them.\n\n", passed, len(rows))
	sb.WriteString("| variant | reading | verdict |\n|---|---|---|\n")
	for _, r := range rows {
		v := "passes"
		if !r.Passed {
			v = "**BLAMED**: " + strings.Join(r.Blamed, "<br>")
		}
		fmt.Fprintf(&sb, "| `%s` | %s | %s |\n", r.Variant, r.Reading, v)
	}
	return sb.String()
}
