package diagram

import (
	"bufio"
	"fmt"
	"io"

	"github.com/agentconform/conform/internal/safetext"
)

// mermaidLabel bounds a Mermaid message's text, in runes before escaping.
const mermaidLabel = 60

// Mermaid writes the diagram as a Mermaid sequenceDiagram, without the
// code fence around it: requests as solid arrows, answers dotted, errors
// with a cross, notifications as dotted open arrows, a request never
// answered with a note. Each message's text starts with its sequence number
// in brackets and is cut to 60 characters; when earlier messages were left
// out (Omitted), a note at the top says how many. Every text is escaped
// with safetext.Mermaid: the only lines in the output are the ones this
// function writes, and none holds a backtick.
func (d *Diagram) Mermaid(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	text := func(s string) string { return safetext.Mermaid(Short(safetext.Line(s), mermaidLabel)) }

	p("sequenceDiagram\n")
	for _, l := range d.Lifelines {
		p("    participant %s as %s\n", l.ID, l.Name)
	}
	span := d.Lifelines[0].ID
	if n := len(d.Lifelines); n > 1 {
		span += "," + d.Lifelines[n-1].ID
	}
	if d.Omitted > 0 {
		p("    Note over %s: %d earlier messages left out\n", span, d.Omitted)
	}
	if len(d.Events) == 0 {
		p("    Note over %s: no messages recorded\n", span)
	}
	for _, e := range d.Events {
		from, to := d.Lifelines[e.From].ID, d.Lifelines[e.To].ID
		label := text(fmt.Sprintf("[%d] %s", e.Seq, e.Text))
		switch {
		case e.Kind == Notify:
			p("    %s--)%s: %s\n", from, to, label)
		case e.Kind == Answer && e.Error:
			p("    %s--x%s: %s\n", from, to, label)
		case e.Kind == Answer:
			p("    %s-->>%s: %s\n", from, to, text(fmt.Sprintf("[%d] ok", e.Seq)))
		case e.Error:
			p("    %s-x%s: %s\n", from, to, label)
		default:
			p("    %s->>%s: %s\n", from, to, label)
		}
		if e.Unanswered {
			p("    Note right of %s: %s\n", to, text(fmt.Sprintf("[%d] never answered", e.Seq)))
		}
	}
	return b.Flush()
}
