package mutation

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// WriteMarkdown writes reports/mutation.md: the score per package and every
// survivor with its classification.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	plugins := r.Plugins
	if r.Kit != "" {
		writeKitHead(&b, r)
	} else if plugins {
		b.WriteString("# Source-level mutation testing of the reference plugins\n\n")
	} else if r.Tree == "kernelkit" {
		b.WriteString("# Source-level mutation testing of kernelkit, the Go kernel kit\n\n")
	} else {
		b.WriteString("# Source-level mutation testing of the reference kernel\n\n")
	}
	scope := "every mutant"
	if r.Sample > 0 {
		scope = fmt.Sprintf("a sample of %d mutants per package (seed %d)", r.Sample, r.Seed)
	}
	tree := r.Tree
	if tree == "" {
		tree = "refkernel"
	}
	if r.Kit != "" {
	} else if plugins {
		fmt.Fprintf(&b, "Campaign over %s of `%s/`, each judged by `conform plugin` against the plugin main that links its package (internal/mutation/plugin.go: the invocations of make plugin and make plugin-ctxmem, --seed 1, and --seed 2 for a mutant seed 1 lets through; a survivor of a package several plugins link is judged by each of them in turn", scope, cell(tree))
	} else {
		fmt.Fprintf(&b, "Campaign over %s of `%s/`, judged by the conformance suite against the embedded kernel ", scope, cell(tree))
	}
	if plugins || r.Kit != "" {
	} else if r.PerScenario {
		b.WriteString("(`conform run --require all`, restricted to the scenarios that execute the mutated statement, measured with one coverage run of each scenario alone; every other scenario runs the mutant as it runs the original. " +
			"A package-level constant or variable is judged by the scenarios that execute its uses, when every use is in a function; any other mutant outside any function, which every scenario may depend on, is judged by the scenarios of the requirements its package's doc.go names")
	} else {
		b.WriteString("(`conform run --require all`, restricted to the scenarios of the requirements each package's doc.go names")
	}
	if r.Confirm && !plugins && r.Kit == "" {
		b.WriteString("; a survivor is run again against the whole suite")
	}
	if len(r.Kernels) > 0 {
		fmt.Fprintf(&b, "; a survivor is then judged against each kernel built on the kit (%s), served by `conform run --kernel`, in the same way but only by the scenarios the unmutated kernel passes, alone and in a run of the whole suite (internal/mutation/kitkernel.go): such a kernel need not pass everything, and a scenario it fails anyway cannot show a mutant; %s", code(strings.Join(r.Kernels, ", ")), kernelKills(r))
	}
	fmt.Fprintf(&b, "). Judging every mutant took %s of worker time (%d jobs: about %s); this run took %s.",
		fmtDuration(r.WorkerS), r.Jobs, fmtDuration(r.WorkerS/float64(max(r.Jobs, 1))), fmtDuration(r.DurationS))
	if r.FromJournal {
		b.WriteString(" The verdicts were read from the campaign's journals (-from-journal), judged in parts; the CPU and wall time of the parts are in the README.")
	}
	if c := r.CPU; c != nil {
		fmt.Fprintf(&b, " CPU time: %.0f s (setup %.0f s, builds of mutants %.0f s).", c.Total, c.Setup, c.Builds)
	}
	if r.Builds > 0 {
		fmt.Fprintf(&b, " This run built %s: mutant schemata (many mutants to a program, switched at run time; %s of building) and the mutants a schema cannot hold.",
			count(r.Builds, "program", "programs"), fmtDuration(r.SchemaBuildS))
	}
	if r.Commit != "" {
		fmt.Fprintf(&b, " Source: commit `%s`; every place below is a line of that commit.", cell(r.Commit))
	}
	b.WriteString("\n\n")
	if c := r.Carried; c != nil {
		fmt.Fprintf(&b, "**Carried verdicts.** %d verdicts were carried from the campaign at `%s` instead of judged again: the same mutant in a declaration whose source is unchanged since, and only kills (of mutants the committed list does not call survivors), mutants that do not compile, and survivors classified equivalent; every other survivor was judged again (carry.go). "+
			"A seeded sample of %d carried kills was judged again: %d disagreed", c.Count, cell(c.From), c.Rechecked, len(c.Disagreed))
		if len(c.Disagreed) > 0 {
			fmt.Fprintf(&b, " (%s; their new verdicts are the ones reported)", cell(strings.Join(c.Disagreed, ", ")))
		}
		b.WriteString(".\n\n")
	}
	verdict := "meets"
	if !r.MeetsGoal {
		verdict = "does **not** meet"
	}
	fmt.Fprintf(&b, "Target: at least %.0f%% of the non-equivalent mutants of every package killed, where a mutant whose behaviour is a reading the specification leaves open counts as equivalent with respect to the specification (spec score). This campaign %s it; "+
		"%s a new check and %s. ", TargetScore*100, verdict,
		count(r.Totals.NeedsCheck, "survivor needs", "survivors need"), count(r.Unclassed, "is unclassified", "are unclassified"))
	if len(r.BelowStrict) == 0 {
		b.WriteString("Every package meets it on the strict score too (open readings counted against it).\n\n")
	} else {
		fmt.Fprintf(&b, "On the strict score (open readings counted against it) %s below it: %s.\n\n",
			count(len(r.BelowStrict), "package is", "packages are"), cell(strings.Join(r.BelowStrict, ", ")))
	}
	b.WriteString("Spec score = killed / (viable − equivalent − open reading): the figure the target applies to, because killing a mutant that implements an open reading would fail a correct kernel; every open reading names the ambiguity or §15 reading it relies on. " +
		"Score = killed / (viable − equivalent − legal variant), the strict figure; raw = killed / viable. A legal variant is a mutant that is a correct kernel and declares what it does (the mutated value feeds both its behaviour and a reading or default it declares at initialize): the suite must let it pass, as it lets the hand-written legal variants of the kill matrix pass. Not observable survivors count against both. Killed includes crashed and timed out. " +
		"Needs check: a survivor the committed list names a missing scenario for (the requirement it breaks and the check that would kill it); it counts against the score until that check exists.\n\n")
	if r.Kit != "" {
		b.WriteString("Not reached: survivors whose code no judge executes against the unmutated kit (one traced run of each judge).\n\n")
	} else if plugins {
		b.WriteString("Not reached: survivors whose statement no invocation executes against the unmutated plugin (one coverage run of each invocation and seed; a plugin check has no scenarios, so there is no per-scenario reach).\n\n")
	} else if r.PerScenario {
		b.WriteString("Not reached: survivors whose statement no scenario executes against the unmutated kernel (one coverage run of each scenario).\n\n")
	} else {
		b.WriteString("Not reached: survivors whose statement no scenario executes against the unmutated kernel (one coverage run of the whole suite).\n\n")
	}
	b.WriteString("| package | mutants | not viable | killed | crashed | timeout | survived | not reached | equivalent | legal variant | not observable | open reading | needs check | unclassified | raw | score | spec score |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range append(append([]Score{}, r.Packages...), r.Totals) {
		name := "`" + s.Package + "`"
		if s.Package == "total" {
			name = "**total**"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s |\n", name, s.Mutants,
			s.NotViable+s.HarnessErrors, s.Killed, s.Crashed, s.TimedOut, s.Survived, s.Unreached, s.Equivalent, s.LegalVariant, s.NotObservable,
			s.OpenReading, s.NeedsCheck, s.Unclassified, pct(s.Raw), pct(s.Score), scoreCell(s))
	}
	if r.Before != nil {
		s := *r.Before
		fmt.Fprintf(&b, "\nBefore (%s): %d mutants, %d killed, %d survived; raw %s, score %s, spec score %s.\n",
			cell(s.Package), s.Mutants, s.Killed+s.Crashed+s.TimedOut, s.Survived, pct(s.Raw), pct(s.Score), scoreCell(s))
	}
	b.WriteString("\n## By operator\n\n| operator | mutants | viable | killed | survived |\n|---|--:|--:|--:|--:|\n")
	for _, op := range opsOf(r) {
		c := r.Operators[op]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", op, c.Mutants, c.Viable, c.Killed, c.Survived)
	}
	b.WriteString("\n## Survivors\n\n")
	if len(r.Survivors) == 0 {
		b.WriteString("None.\n")
	}
	pkg := ""
	for _, s := range r.Survivors {
		if s.Package != pkg {
			pkg = s.Package
			fmt.Fprintf(&b, "\n### %s\n\n| place | mutation | reached | classification | clause | reason |\n|---|---|---|---|---|---|\n", pkg)
		}
		class, clause, reason := "**unclassified**", "", ""
		if c := s.Classification; c != nil {
			class, clause, reason = string(c.Class), c.Clause, c.Reason
			if c.Class == NeedsCheck {
				class = "**needs check**"
			}
		}
		if len(s.Unreproduced) > 0 {
			reason += fmt.Sprintf(" (failed once on %s, but not again)", strings.Join(s.Unreproduced, ", "))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", s.Pos(), cell(s.Describe()), reachedCell(s.Reached), class, cell(clause), cell(reason))
	}
	if len(r.Stale) > 0 {
		b.WriteString("\n## Stale classifications\n\nThese entries of the committed list match no mutant of this campaign (the code changed); review and remove them:\n\n")
		for _, k := range r.Stale {
			fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(k, "`", "'"))
		}
	}
	if len(r.Unreproduced) > 0 {
		b.WriteString("\n## Failures that did not reproduce\n\nA kill counts only when the failing requirements fail again on a second run. " +
			"These requirements failed once against some mutant and then passed against the same mutant: flakiness of the suite under load, not kills.\n\n")
		ids := make([]string, 0, len(r.Unreproduced))
		for id := range r.Unreproduced {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			fmt.Fprintf(&b, "- %s: %d\n", id, r.Unreproduced[id])
		}
	}
	if errs := harnessErrors(r); len(errs) > 0 {
		b.WriteString("\n## Mutants without a verdict\n\n")
		for _, e := range errs {
			fmt.Fprintf(&b, "- `%s` %s: %s\n", e.Pos(), cell(e.Describe()), code(e.Detail))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// kernelKills says how many kills each kernel built on the kit made.
func kernelKills(r *Report) string {
	by := map[string]int{}
	for _, m := range r.Mutants {
		if m.Status.IsKill() && m.Kernel != "" {
			by[m.Kernel]++
		}
	}
	var parts []string
	for _, k := range r.Kernels {
		name := path.Base(k)
		parts = append(parts, fmt.Sprintf("%d killed by %s", by[name], name))
	}
	return strings.Join(parts, ", ") + " (the others by the embedded kernel; each mutant's kernel field in the JSON)"
}

// writeKitHead is the title of a kit campaign's report (Report.Kit).
func writeKitHead(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "# Mutation testing of the %s\n\n", r.Kit)
	scope := "every mutant"
	if r.Sample > 0 {
		scope = fmt.Sprintf("a sample of %d mutants per file (seed %d)", r.Sample, r.Seed)
	}
	if r.KitMutants > 0 {
		scope = fmt.Sprintf("a random sample of %d of the %d mutants (judged in a seeded random order until the campaign's time ran out)", len(r.Mutants), r.KitMutants)
	}
	fmt.Fprintf(b, "Campaign over %s of `%s/` (%s), judged (%s", scope, cell(r.Tree), cell(r.Tool), r.KitJudges)
}

// opsOf is the operators of the report's table: this package's, or for a
// kit campaign those its mutant generator used.
func opsOf(r *Report) []Op {
	if r.Kit == "" {
		return Ops
	}
	var ops []Op
	for op := range r.Operators {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	return ops
}

func reachedCell(r string) string {
	switch r {
	case ReachedNo:
		return "**no**"
	case "":
		return "?"
	}
	return r
}

func harnessErrors(r *Report) []Result {
	var out []Result
	for _, m := range r.Mutants {
		if m.Status == HarnessError {
			out = append(out, m)
		}
	}
	return out
}

// cell makes text safe inside a Markdown table cell: no row breaks, no
// column breaks. Code in it is in code spans, where nothing is HTML.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// code shows text that came from a run (a build error, a panic message)
// as one code span, so nothing in it is taken as Markdown or HTML.
func code(s string) string {
	return "`" + strings.ReplaceAll(cell(s), "`", "'") + "`"
}

// scoreCell is the spec score, bold when below the target; n/a when every
// viable mutant is equivalent.
func scoreCell(s Score) string {
	switch {
	case s.Killed+s.Crashed+s.TimedOut+s.Survived-s.Equivalent-s.LegalVariant-s.OpenReading == 0:
		return "n/a"
	case s.SpecScore < TargetScore:
		return "**" + pct(s.SpecScore) + "**"
	}
	return pct(s.SpecScore)
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", f*100) }

func fmtDuration(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.0f s", s)
	case s < 2*3600:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}

// count is n with the singular or plural words after it.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
