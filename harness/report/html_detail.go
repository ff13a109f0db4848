package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/report/diagram"
	"github.com/agentconform/conform/internal/safetext"
)

// stderrMarker is how the driver appends the kernel's stderr tail to a
// failure text (driver.Fault).
const stderrMarker = "\n--- kernel stderr (tail) ---\n"

// plan decides which requirements and scenarios get a section of their
// own: every failing, erring, partial, unverifiable or observed
// requirement, and every scenario that did not pass or that one of those
// requirements or an observation points at.
func (pg *page) plan() {
	r := pg.r
	pg.detailed = map[string]bool{}
	pg.scenarioIDs = map[string]string{}
	observed := map[string]bool{}
	for _, o := range r.Observations {
		observed[o.Subject] = true
	}
	want := map[string]bool{}
	for _, o := range r.Observations {
		want[o.Scenario] = true
	}
	for _, q := range r.Requirements {
		if !needsDetail(q) && !observed[q.ID] {
			continue
		}
		pg.detailed[q.ID] = true
		for _, c := range slices.Concat(q.Failures, q.NotReached) {
			want[c.Scenario] = true
		}
	}
	for i, s := range r.Scenarios {
		switch {
		case s.Status == Pass && !want[s.Ref()]:
		case s.Status == Skipped || s.Status == NotRun:
		default:
			if _, dup := pg.scenarioIDs[s.Ref()]; !dup {
				pg.scenarioIDs[s.Ref()] = fmt.Sprintf("s-%d", i+1)
			}
		}
	}
}

func needsDetail(q RequirementResult) bool {
	return q.Status == Fail || q.Status == Error || q.Status == Unverifiable || q.Partial
}

// attention writes "Needs attention": one row per requirement with a
// section of its own, failures and errors first (MUST before SHOULD before
// MAY), then unverifiable, partial and observed ones, each with the first
// line of its reason and a link to its section.
func (pg *page) attention() {
	var rows []RequirementResult
	for _, q := range pg.r.Requirements {
		if pg.detailed[q.ID] {
			rows = append(rows, q)
		}
	}
	slices.SortStableFunc(rows, func(a, b RequirementResult) int {
		if d := attentionRank(a) - attentionRank(b); d != 0 {
			return d
		}
		return levelRank(a.Class) - levelRank(b.Class)
	})
	pg.p(`<section id="problems"><h2>Needs attention <span class="count">%d</span></h2>`+"\n", len(rows))
	if len(rows) == 0 {
		pg.p("<p>No requirement fails, ends in error, passes only in part, is unverifiable or was observed.</p>\n</section>\n")
		return
	}
	pg.p("<table class=\"attention\">\n<thead><tr><th>ID</th><th>Level</th><th>Status</th><th>Requirement and why</th></tr></thead>\n<tbody>\n")
	for _, q := range rows {
		status := pg.badge(q.Status, q.Partial)
		if !needsDetail(q) {
			status += ` <span class="st observed">observed</span>`
		}
		pg.p(`<tr class="st-%s lv-%s"><td class="mono"><a href="#%s">%s</a></td><td>%s</td><td>%s</td><td><strong>%s</strong>`,
			filterStatus(q), levelClass(q.Class), anchor("d-", q.ID), pg.line(q.ID), pg.line(q.Level), status, pg.line(q.Title))
		why := ""
		switch {
		case q.Partial:
			why = "Not verified: " + pg.secrets.Redact(q.Unverified)
		case len(q.Failures) > 0:
			c := q.Failures[0]
			why = c.Where() + ": " + firstLine(pg.secrets.Redact(c.Message), pg.secrets.Redact(c.Step))
			if n := len(foldChecks(q.Failures)); n > 1 {
				why += fmt.Sprintf(" (and %d more failing checks)", n-1)
			}
		case q.Status != Pass:
			why = firstLine(pg.secrets.Redact(q.Reason), "")
		default:
			why = "Observed without judging; see its section."
		}
		if why != "" {
			pg.p(`<p class="note">%s</p>`, safetext.HTML(truncate(safetext.Line(why), 240)))
		}
		pg.p("</td></tr>\n")
	}
	pg.p("</tbody></table>\n</section>\n")
}

// attentionRank orders "Needs attention": failures and errors, then
// unverifiable, partial and merely observed requirements.
func attentionRank(q RequirementResult) int {
	switch {
	case q.Status == Fail || q.Status == Error:
		return 0
	case q.Status == Unverifiable:
		return 1
	case q.Partial:
		return 2
	}
	return 3
}

func levelRank(class string) int {
	switch class {
	case classMust:
		return 0
	case classShould:
		return 1
	case classMay:
		return 2
	}
	return 3
}

func (pg *page) problems() {
	pg.p(`<section id="details"><h2>Requirements in detail</h2>` + "\n")
	n := 0
	for _, q := range pg.r.Requirements {
		if !pg.detailed[q.ID] {
			continue
		}
		n++
		class := filterStatus(q)
		if !needsDetail(q) {
			class = "observed"
		}
		pg.p(`<article id="%s" class="%s"><h3>%s %s · %s · %s</h3>`+"\n",
			anchor("d-", q.ID), class, pg.line(q.ID), pg.badge(q.Status, q.Partial), pg.line(q.Level), pg.line(q.Title))
		pg.catalogText(q.ID)
		if q.Glue != "" {
			pg.p("<h4>Glue</h4><p>The adapter decides this, not the loop: %s</p>\n", pg.text(q.Glue))
		}
		if q.Status != Pass && q.Reason != "" && len(q.Failures) == 0 {
			pg.p("<h4>Reason</h4><pre>%s</pre>\n", pg.text(q.Reason))
		}
		pg.checkRefs("Failing checks", q.Failures)
		pg.checkRefs("Checks not reached", q.NotReached)
		if q.Unverified != "" {
			pg.p("<h4>Not verified</h4><p>%s</p>\n", pg.text(q.Unverified))
		}
		var obs []Observation
		for _, o := range pg.r.Observations {
			if o.Subject == q.ID {
				obs = append(obs, o)
			}
		}
		pg.observations(obs)
		pg.p("<h4>Scenarios</h4><p>%s</p>\n</article>\n", pg.scenarioLinks(q.Scenarios))
	}
	if n == 0 {
		pg.p("<p>No requirement fails, ends in error, passes only in part, is unverifiable or was observed.</p>\n")
	}
	pg.p("</section>\n")
}

// checkRefs lists checks, those that say the same thing in several
// scenarios folded into one item that names the scenarios.
func (pg *page) checkRefs(heading string, refs []CheckRef) {
	if len(refs) == 0 {
		return
	}
	pg.p("<h4>%s</h4><ul>\n", heading)
	for _, g := range foldChecks(refs) {
		where := "<code>" + pg.line(g.Where()) + "</code>"
		if id, ok := pg.scenarioIDs[g.Scenario]; ok {
			where = fmt.Sprintf(`<a href="#%s">%s</a>`, id, where)
		}
		pg.p("<li>%s %s", where, pg.line(g.Step))
		if g.Message != "" {
			pg.p("<pre>%s</pre>", pg.text(g.Message))
		}
		if len(g.Also) > 0 {
			var places []string
			for _, c := range g.members() {
				link := pg.scenarioLinks([]string{c.Scenario})
				if p := place(c); p != c.Scenario {
					link += pg.line(strings.TrimPrefix(p, c.Scenario))
				}
				places = append(places, link)
			}
			pg.p(`<p class="meta">The same in %d scenarios: %s</p>`, len(places), strings.Join(places, ", "))
		}
		pg.p("</li>\n")
	}
	pg.p("</ul>\n")
}

func (pg *page) observations(obs []Observation) {
	if len(obs) == 0 {
		return
	}
	pg.p("<h4>Observations (recorded without judging)</h4><ul>\n")
	for _, o := range obs {
		pg.p("<li><code>%s</code> %s: %s</li>\n", pg.line(o.Subject), pg.scenarioLinks([]string{o.Scenario}), pg.line(o.What))
	}
	pg.p("</ul>\n")
}

func (pg *page) scenarios() {
	pg.p(`<section id="scenarios"><h2>Scenarios in detail</h2>` + "\n")
	pg.p(`<p>Every scenario that did not pass, and every passing one a requirement above points at.</p>` + "\n")
	pg.p(`<p class="legend">A message exchange is drawn with the kernel on the left and the harness's fakes to its right, oldest message at the top, one row per arrow; hover over a row for its full text. Arrows: %s.</p>`+"\n", safetext.HTML(diagram.Legend))
	n := 0
	for i, s := range pg.r.Scenarios {
		if pg.scenarioIDs[s.Ref()] != fmt.Sprintf("s-%d", i+1) {
			continue
		}
		n++
		pg.scenario(s, pg.scenarioIDs[s.Ref()])
	}
	if n == 0 {
		pg.p("<p>Every scenario passed or was skipped, and no requirement points at one.</p>\n")
	}
	pg.p("</section>\n")
}

func (pg *page) scenario(s ScenarioResult, id string) {
	pg.p(`<article id="%s" class="%s"><h3>%s %s</h3>`+"\n", id, statusClass(s.Status), pg.badge(s.Status, false), pg.line(s.Name))
	pg.p(`<p class="meta"><code>%s</code> · proves %s · %s</p>`+"\n", pg.line(s.Ref()), pg.codes(s.Requirements, "nothing"), s.Duration.Round(time.Millisecond))
	if s.Failure != "" {
		heading := "Failure"
		if s.Status == Skipped || s.Status == Unverifiable {
			heading = "Reason"
		}
		// The stderr tail stays inside the failure text, under the
		// driver's own separator line: a page split at a marker the kernel
		// can also print would let kernel text add a section.
		if strings.Contains(s.Failure, stderrMarker) {
			heading = "Failure, then the kernel's stderr tail"
		}
		pg.p("<h4>%s</h4><pre>%s</pre>\n", heading, pg.text(s.Failure))
	}
	if len(s.Checks) > 0 {
		pg.p("<h4>Checks</h4>\n<table class=\"checks\"><thead><tr><th class=\"n\">Line</th><th>Step</th><th>Proves</th><th>Outcome</th></tr></thead><tbody>\n")
		for _, c := range s.Checks {
			pg.p(`<tr><td class="n">%d</td><td>%s`, c.Line, pg.line(c.Step))
			if c.Message != "" && c.Status != Pass {
				pg.p("<pre>%s</pre>", pg.text(c.Message))
			}
			pg.p("</td><td>%s</td><td>%s</td></tr>\n", pg.codes(c.Requirements, ""), pg.badge(c.Status, false))
		}
		pg.p("</tbody></table>\n")
	}
	pg.observations(s.Observations)
	if d := exchangeDiagram(s, 0, pg.secrets); d != nil {
		pg.p("<h4>Message exchange</h4>\n<p class=\"meta\">%s</p>\n<div class=\"sd-box\">", exchangeNote(d))
		// A write error surfaces at Flush.
		_ = d.SVG(pg.b, diagram.SVGOptions{Title: "Message exchange of " + pg.secrets.Redact(s.Name)})
		pg.p("</div>\n")
	}
	if len(s.Log) > 0 {
		pg.p("<details><summary>Message log as text (%d lines)</summary><pre>%s</pre></details>\n", len(s.Log), pg.text(strings.Join(s.Log, "\n")))
	}
	pg.p("</article>\n")
}

// exchangeNote says how much of the exchange a diagram shows.
func exchangeNote(d *diagram.Diagram) string {
	if d.Omitted == 0 {
		return fmt.Sprintf("All %d recorded messages.", d.Messages)
	}
	return fmt.Sprintf("The last %d of %d recorded messages (%d earlier ones left out).", d.Messages, d.Messages+d.Omitted, d.Omitted)
}

func (pg *page) extras() {
	r := pg.r
	if len(r.Observations) > 0 {
		pg.p(`<section id="observations"><h2>Observations</h2><p>Recorded without judging: no verdict, exit status or compliance level depends on them.</p>` + "\n<table><thead><tr><th>Subject</th><th>Scenario</th><th>What was seen</th></tr></thead><tbody>\n")
		for _, o := range r.Observations {
			pg.p("<tr><td><code>%s</code></td><td>%s</td><td>%s</td></tr>\n", pg.line(o.Subject), pg.scenarioLinks([]string{o.Scenario}), pg.text(o.What))
		}
		pg.p("</tbody></table></section>\n")
	}
	if st := r.Stability; st != nil {
		pg.p(`<section id="stability"><h2>Stability</h2>` + "\n")
		if !st.Varied {
			pg.p("<p>Every outcome was the same in all %d runs.</p></section>\n", st.Runs)
			return
		}
		pg.p("<p>Outcomes <strong>varied</strong> over %d runs.</p>\n<table><thead><tr><th>Scenario or requirement</th><th>Outcomes</th><th class=\"n\">Flake rate</th></tr></thead><tbody>\n", st.Runs)
		for _, v := range st.Scenarios {
			pg.p("<tr><td>%s</td><td>%s</td><td></td></tr>\n", pg.scenarioLinks([]string{v.Scenario}), pg.line(v.Summary))
		}
		for _, f := range st.Requirements {
			pg.p("<tr><td><code>%s</code></td><td>%s</td><td class=\"n\">%.0f%%</td></tr>\n", pg.line(f.ID), pg.line(f.Summary), 100*f.Rate)
		}
		pg.p("</tbody></table></section>\n")
	}
}

func (pg *page) allScenarios() {
	pg.p(`<section id="all-scenarios"><h2>All scenarios</h2>` + "\n<table><thead><tr><th>Scenario</th><th>Name</th><th>Outcome</th><th>Proves</th><th class=\"n\">ms</th></tr></thead><tbody>\n")
	for _, s := range pg.r.Scenarios {
		pg.p("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"n\">%.0f</td></tr>\n",
			pg.scenarioLinks([]string{s.Ref()}), pg.line(s.Name), pg.badge(s.Status, false), pg.codes(s.Requirements, ""), millis(s.Duration))
	}
	pg.p("</tbody></table></section>\n")
}
