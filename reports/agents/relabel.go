package agents

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

// RelabelWarning is the warning a relabelled report carries in every
// format: its glue labels were applied after the run.
const RelabelWarning = "glue labels applied after the run from the profile's glue list and the run's own limitations since fixed (run_glue of NAME.judgements.json; go test ./reports/agents -relabel): the run predates them; every verdict is the run's, rebuilt from its recorded scenarios"

// Relabel rebuilds r from its recorded scenarios with the profile's glue
// labels: a glue label never changes a verdict (harness/report.Build), so
// the labels a run would have carried are applied without running the
// agent again (an hour on a shared machine). It refuses, naming the first
// difference, when the rebuild without labels does not reproduce r's
// verdicts (the catalog or the verdict rules changed since the run: run it
// again instead). runGlue are the run's own limitations, fixed in the
// profile since. The rebuilt report carries RelabelWarning.
func Relabel(cat *spec.Catalog, r *report.Report, p *Profile, runGlue []GlueNote) (*report.Report, error) {
	opt := report.BuildOptions{Selection: r.Selection, Interrupted: r.Interrupted, Warnings: r.Warnings, LeftOut: r.LeftOut}
	k := r.Kernel
	k.Glue = nil
	plain := report.BuildWith(cat, k, r.Scenarios, r.StartedAt, r.Duration, opt)
	if len(plain.Requirements) != len(r.Requirements) {
		return nil, fmt.Errorf("the rebuild has %d requirements, the report %d: run the agent again", len(plain.Requirements), len(r.Requirements))
	}
	for i, q := range r.Requirements {
		g := plain.Requirements[i]
		if g.ID != q.ID || g.Status != q.Status || g.Partial != q.Partial || g.Reason != q.Reason {
			return nil, fmt.Errorf("the rebuild does not reproduce %s (%s %q, the report says %s %q): run the agent again", q.ID, g.Status, g.Reason, q.Status, q.Reason)
		}
	}
	k.Glue = glueOf(p, runGlue)
	if !slices.Contains(opt.Warnings, RelabelWarning) {
		opt.Warnings = append(slices.Clone(opt.Warnings), RelabelWarning)
	}
	out := report.BuildWith(cat, k, r.Scenarios, r.StartedAt, r.Duration, opt)
	out.Tool = r.Tool
	out.Protocol = r.Protocol
	return out, nil
}

// glueOf is the profile's glue labels and the run's (fixed since).
func glueOf(p *Profile, runGlue []GlueNote) map[string]string {
	m := map[string]string{}
	for _, g := range append(slices.Clone(p.Glue), runGlue...) {
		m[g.Requirement] = g.Reason
	}
	return m
}

// GlueMatches reports whether r carries exactly the glue labels of its
// profile and of its run (fixed since).
func GlueMatches(r *report.Report, p *Profile, runGlue []GlueNote) bool {
	return maps.Equal(glueOf(p, runGlue), r.Kernel.Glue)
}

// WriteAll writes r as dir/NAME.json, .md and .html, as conform agent does.
func WriteAll(dir, slug string, r *report.Report) error {
	for _, w := range []struct {
		ext   string
		write func(*bytes.Buffer, *report.Report) error
	}{
		{".json", func(b *bytes.Buffer, r *report.Report) error { return report.WriteJSON(b, r) }},
		{".md", func(b *bytes.Buffer, r *report.Report) error { return report.WriteMarkdown(b, r) }},
		{".html", func(b *bytes.Buffer, r *report.Report) error { return report.WriteHTML(b, r) }},
	} {
		var b bytes.Buffer
		if err := w.write(&b, r); err != nil {
			return fmt.Errorf("%s%s: %w", slug, w.ext, err)
		}
		if err := os.WriteFile(filepath.Join(dir, slug+w.ext), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
