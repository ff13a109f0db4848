package diagram

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/agentconform/conform/internal/safetext"
)

// Geometry of the SVG rendering, in pixels. Rows have a fixed height so
// that 400 arrows (200 requests and their answers) stay legible in a
// scrolling box; the lifeline names are repeated every bandEvery rows.
const (
	gutter    = 104 // "#seq" and the time in ms, left of the lifelines
	colWidth  = 132
	minCols   = 4 // the width labels may use, however few lifelines
	headH     = 30
	rowH      = 20
	bandEvery = 40
	pad       = 8
	charW     = 6.6 // of the 11px monospace labels
	maxLabel  = 64
)

// Style is the CSS of the SVG rendering. A page holding diagrams includes
// it once; SVG with Standalone set carries it in a <style> element.
// Colours follow the arrow: black requests, grey answers, dashed blue
// notifications, purple harness requests, red errors, orange requests never
// answered.
const Style = `svg.sd{font:11px ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;background:#fff}
.sd .sd-ll{stroke:#c4cbd4;stroke-width:1}
.sd .sd-hd rect{fill:#eef2f7;stroke:#8393a7}
.sd .sd-hd text,.sd .sd-band text{text-anchor:middle;fill:#23354a}
.sd .sd-band text{fill:#8393a7;paint-order:stroke;stroke:#fff;stroke-width:3px}
.sd text.sd-omit{fill:#6b7785;font-style:italic}
.sd text.sd-lbl{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
.sd .sd-call line{stroke:#1d2733}.sd .sd-call path{fill:#1d2733}.sd .sd-call text{fill:#1d2733}
.sd .sd-ans line{stroke:#8a94a0}.sd .sd-ans path{fill:none;stroke:#8a94a0}.sd .sd-ans text{fill:#5d6874}
.sd .sd-note line{stroke:#3d7cc9;stroke-dasharray:5 3}.sd .sd-note path{fill:#3d7cc9}.sd .sd-note text{fill:#2c5f9e}
.sd .sd-push line{stroke:#7a3fb8}.sd .sd-push path{fill:#7a3fb8}.sd .sd-push text{fill:#6a2fa8}
.sd .sd-err line{stroke:#c62828;stroke-width:1.6}.sd .sd-err path{fill:#c62828;stroke:#c62828}.sd .sd-err text{fill:#b71c1c;font-weight:bold}
.sd .sd-unans line{stroke:#e67e00;stroke-width:1.6}.sd .sd-unans path{fill:#e67e00}.sd .sd-unans text{fill:#b36200;font-weight:bold}
.sd .sd-unans circle{fill:#fff;stroke:#e67e00;stroke-width:1.6}
.sd text.sd-gut{fill:#6b7785;font-weight:normal;text-anchor:start}.sd text.sd-t{text-anchor:end}`

// SVGOptions say how SVG writes a diagram.
type SVGOptions struct {
	// Standalone adds the XML namespace's stylesheet, for an .svg file of
	// its own; inline SVG in a page relies on the page's copy of Style.
	Standalone bool
	// Title names the diagram for assistive technology and as a tooltip.
	Title string
}

// SVG writes the diagram as one <svg> element: lifeline heads, then one row
// per event, each an arrow with its label (cut to fit; the full text is the
// row's <title> tooltip) and, in the left gutter, the message's sequence
// number and time in milliseconds. Every string is escaped; the output is
// well-formed XML.
func (d *Diagram) SVG(w io.Writer, opt SVGOptions) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	esc := func(s string) string { return safetext.HTML(safetext.Line(s)) }

	cols := len(d.Lifelines)
	width := gutter + max(cols, minCols)*colWidth + pad
	rows := len(d.Events)
	bands := 0
	if rows > 0 {
		bands = (rows - 1) / bandEvery
	}
	if d.Omitted > 0 {
		rows++ // a row saying how many earlier messages were left out
	}
	top := pad + headH + pad
	height := top + (rows+bands)*rowH + pad
	x := func(i int) int { return gutter + i*colWidth + colWidth/2 }

	p(`<svg xmlns="http://www.w3.org/2000/svg" class="sd" width="%d" height="%d" viewBox="0 0 %d %d" role="img">`, width, height, width, height)
	if opt.Standalone {
		p("<style>%s</style>", Style)
	}
	p("<title>%s</title>", esc(opt.Title))
	for i := range d.Lifelines {
		p(`<line class="sd-ll" x1="%d" y1="%d" x2="%d" y2="%d"/>`, x(i), pad+headH, x(i), height-pad)
	}
	p(`<g class="sd-hd">`)
	for i, l := range d.Lifelines {
		p(`<rect x="%d" y="%d" width="%d" height="%d" rx="3"/><text x="%d" y="%d">%s</text>`,
			x(i)-colWidth/2+6, pad, colWidth-12, headH, x(i), pad+headH/2+4, esc(l.Name))
	}
	p(`</g><text class="sd-gut" x="4" y="%d">#seq</text><text class="sd-gut sd-t" x="%d" y="%d">ms</text>`,
		pad+headH/2+4, gutter-8, pad+headH/2+4)

	y := top
	if d.Omitted > 0 {
		p(`<text class="sd-omit" x="%d" y="%d">⋮ %d earlier messages left out</text>`, x(0)+4, y+rowH-9, d.Omitted)
		y += rowH
	}
	for n, e := range d.Events {
		if n > 0 && n%bandEvery == 0 {
			p(`<g class="sd-band">`)
			for i, l := range d.Lifelines {
				p(`<text x="%d" y="%d">%s</text>`, x(i), y+rowH-6, esc(l.Name))
			}
			p(`</g>`)
			y += rowH
		}
		d.row(p, esc, e, y, width, x)
		y += rowH
	}
	p("</svg>")
	return b.Flush()
}

// row draws one event at the top y of its row.
func (d *Diagram) row(p func(string, ...any), esc func(string) string, e Event, y, width int, x func(int) int) {
	class := [...]string{Call: "sd-call", Answer: "sd-ans", Notify: "sd-note", Push: "sd-push"}[e.Kind]
	switch {
	case e.Error:
		class += " sd-err"
	case e.Unanswered:
		class += " sd-unans"
	}
	text := e.Text
	if e.Unanswered {
		text += " (never answered)"
	}
	x1, x2 := x(e.From), x(e.To)
	ay := y + rowH - 5
	p(`<g class="%s"><title>%s</title>`, class, esc(e.Detail))
	seq := fmt.Sprintf("#%d", e.Seq)
	if e.Kind == Answer {
		seq = "↩" + seq
	}
	p(`<text class="sd-gut" x="4" y="%d">%s</text><text class="sd-gut sd-t" x="%d" y="%d">%.1f</text>`, ay, seq, gutter-8, ay, e.AtMS)
	p(`<line x1="%d" y1="%d" x2="%d" y2="%d"/>`, x1, ay, x2, ay)
	dir := 1
	if x2 < x1 {
		dir = -1
	}
	// An arrowhead is a path of its own, not a marker: markers are found
	// by document-wide id, which many inline diagrams would share.
	p(`<path d="M%d %dl%d -4v8z"/>`, x2, ay, -8*dir)
	if e.Unanswered {
		p(`<circle cx="%d" cy="%d" r="3.5"/>`, x2+6*dir, ay)
	}
	if e.Error {
		p(`<path d="M%d %dl6 6m0 -6l-6 6" stroke-width="1.6"/>`, x2+4*dir-3, ay-9)
	}
	left := min(x1, x2) + 4
	room := int(float64(width-left-pad) / charW)
	label := Short(safetext.Line(text), min(maxLabel, room))
	p(`<text class="sd-lbl" x="%d" y="%d">%s</text></g>`, left, ay-4, esc(label))
}

// Legend is what the SVG rendering's arrows mean, for the page around it.
var Legend = strings.Join([]string{
	"solid black: a request the kernel sent a fake",
	"grey, open head: the fake's answer",
	"dashed blue: a notification",
	"purple: a request the harness sent the kernel",
	"red with a cross: an error answer",
	"orange with a ring: a request never answered",
}, "; ")
