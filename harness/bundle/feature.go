package bundle

import (
	"fmt"
	"strings"

	messages "github.com/cucumber/messages/go/v34"
)

// Feature renders one compiled scenario (a pickle: background steps first,
// an outline's row filled in) as a feature file of that scenario alone.
// Steps are written with the "*" keyword: godog matches step text only, and
// the pickle no longer says which keyword each step had. Header lines are
// comments, so nothing in them can be read as Gherkin.
func Feature(p *messages.Pickle, featureName string, header []string) string {
	var b strings.Builder
	for _, h := range header {
		for _, line := range strings.Split(h, "\n") {
			b.WriteString(strings.TrimRight("# "+oneLine(line), " ") + "\n")
		}
	}
	name := oneLine(featureName)
	if name == "" {
		name = "A scenario from a repro bundle"
	}
	fmt.Fprintf(&b, "Feature: %s\n\n", name)
	var tags []string
	for _, t := range p.Tags {
		tags = append(tags, t.Name)
	}
	if len(tags) > 0 {
		fmt.Fprintf(&b, "  %s\n", strings.Join(tags, " "))
	}
	fmt.Fprintf(&b, "  Scenario: %s\n", oneLine(p.Name))
	for _, st := range p.Steps {
		fmt.Fprintf(&b, "    * %s\n", oneLine(st.Text))
		if st.Argument == nil {
			continue
		}
		if ds := st.Argument.DocString; ds != nil {
			docString(&b, ds)
		}
		if dt := st.Argument.DataTable; dt != nil {
			for _, row := range dt.Rows {
				b.WriteString("      |")
				for _, c := range row.Cells {
					b.WriteString(" " + cell(c.Value) + " |")
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// docString writes a doc string with a delimiter its content does not
// hold, escaping the delimiter only when the content holds both.
func docString(b *strings.Builder, ds *messages.PickleDocString) {
	delim := `"""`
	content := ds.Content
	switch {
	case !strings.Contains(content, `"""`):
	case !strings.Contains(content, "```"):
		delim = "```"
	default:
		content = strings.ReplaceAll(content, `"""`, `\"\"\"`)
	}
	fmt.Fprintf(b, "      %s%s\n", delim, ds.MediaType)
	for _, line := range strings.Split(content, "\n") {
		if line != "" {
			b.WriteString("      " + line)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "      %s\n", delim)
}

// cell escapes a table cell as Gherkin reads it back.
func cell(v string) string {
	r := strings.NewReplacer(`\`, `\\`, "|", `\|`, "\n", `\n`)
	return r.Replace(v)
}

// oneLine keeps a name on its line: a line break in it would start a new
// Gherkin line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
