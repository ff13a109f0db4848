package report

import "bytes"

// mermaidMessages is how many of a scenario's last messages its Mermaid
// diagram shows: enough for the turn that went wrong, few enough that a
// page of them stays readable. The HTML report draws all it kept.
const mermaidMessages = 40

// mermaidBudget bounds the bytes of all the diagrams of one Markdown
// report. GitHub refuses a step summary over 1 MiB, and a kernel with a
// hundred failing scenarios and long labels would pass that; the diagrams
// that do not fit are named, not silently dropped.
const mermaidBudget = 400 << 10

// failingScenarios writes each failing or erring scenario's recorded
// exchange as a Mermaid sequenceDiagram, which GitHub renders in a step
// summary. Every text in a diagram went through safetext.Mermaid, so none
// can end the code block or add a line to the diagram.
func (m mdText) failingScenarios(p func(string, ...any), r *Report) {
	var failing []ScenarioResult
	for _, s := range r.Scenarios {
		if s.Status == Fail || s.Status == Error {
			failing = append(failing, s)
		}
	}
	if len(failing) == 0 {
		return
	}
	p("## Failing scenarios\n\nThe last messages of each failing or erring scenario, from the kernel's point of view: requests to the harness's fakes, their answers (dotted), notifications (dotted, open head) and errors (a cross). The HTML report (`--html`) draws every message the run kept.\n\n")
	used := 0
	for _, s := range failing {
		p("### %s · %s · %s\n\n", m.inline(glyph(s.Status)), m.code(s.Ref()), m.inline(s.Name))
		d := exchangeDiagram(s, mermaidMessages, m.secrets)
		if d == nil {
			p("No messages were recorded.\n\n")
			continue
		}
		var buf bytes.Buffer
		if err := d.Mermaid(&buf); err != nil {
			p("The diagram could not be drawn: %s\n\n", m.inline(err.Error()))
			continue
		}
		if used+buf.Len() > mermaidBudget {
			p("Diagram left out: the diagrams above already fill this summary's share of GitHub's 1 MiB limit. The JSON and HTML reports hold this scenario's exchange.\n\n")
			continue
		}
		used += buf.Len()
		total := d.Messages + d.Omitted
		if d.Omitted > 0 {
			p("The last %d of %d recorded messages (%d earlier ones left out):\n\n", d.Messages, total, d.Omitted)
		} else {
			p("All %d recorded messages:\n\n", total)
		}
		p("```mermaid\n%s```\n\n", buf.Bytes())
	}
}
