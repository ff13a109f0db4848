package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentconform/conform/internal/safetext"
)

// Badge is what a README badge says of a run: "conform | MUST ✓ 87/96".
type Badge struct {
	Label   string `json:"label"`
	Message string `json:"message"`
	// Color is a shields.io colour name; Hex the same colour for the SVG.
	Color string `json:"color"`
	Hex   string `json:"-"`
}

// Badge colours by compliance level, as shields.io names them.
var badgeColors = map[string][2]string{
	LevelAll:    {"brightgreen", "#4c1"},
	LevelShould: {"green", "#97ca00"},
	LevelMust:   {"yellowgreen", "#a4a61d"},
	LevelNone:   {"red", "#e05d44"},
	"claim":     {"lightgrey", "#9f9f9f"},
}

// BadgeOf sums a report up for a badge. The message is the compliance level
// and how many agent-loop requirements that level covers passed (partial
// passes included) out of how many there are: MUST counts the must-class
// ones, SHOULD adds the should-class ones, ALL the may-class ones as well.
// A kernel with a failing or erring MUST gets "MUST ✗ passed/total" in red.
// A run that makes no compliance claim (interrupted, or a --tags selection)
// says so in grey. Nothing in a badge comes from the kernel.
func BadgeOf(r *Report) Badge {
	b := Badge{Label: "conform"}
	color := func(key string) { b.Color, b.Hex = badgeColors[key][0], badgeColors[key][1] }
	switch {
	case r.Interrupted:
		b.Message = "interrupted, no claim"
		color("claim")
		return b
	case r.Selection != "":
		b.Message = "selected scenarios only, no claim"
		color("claim")
		return b
	}
	classes := map[string][]string{
		LevelMust:   {classMust},
		LevelShould: {classMust, classShould},
		LevelAll:    {classMust, classShould, classMay},
	}
	level, mark := r.Compliance.Level, "✓"
	if _, ok := classes[level]; !ok {
		level, mark = LevelNone, "✗"
	}
	scope := LevelMust
	if level != LevelNone {
		scope = level
	}
	passed, total := 0, 0
	for _, q := range r.Requirements {
		if !agentLoop(q) || !contains(classes[scope], q.Class) {
			continue
		}
		total++
		if q.Status == Pass {
			passed++
		}
	}
	b.Message = fmt.Sprintf("%s %s %d/%d", strings.ToUpper(scope), mark, passed, total)
	color(level)
	return b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// WriteBadgeJSON writes the badge as a shields.io endpoint document
// (https://shields.io/badges/endpoint-badge), the shape
// spec/badge.schema.json describes: a CI job publishes the file and a
// README links https://img.shields.io/endpoint?url=<its URL>.
func WriteBadgeJSON(w io.Writer, r *Report) error {
	b := BadgeOf(r)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		SchemaVersion int    `json:"schemaVersion"`
		Label         string `json:"label"`
		Message       string `json:"message"`
		Color         string `json:"color"`
	}{1, b.Label, b.Message, b.Color})
}

// WriteBadge writes the badge as an SVG file in the flat style of
// shields.io, drawn by conform: a README can show it from the repository
// with no service involved. A comment in it names the conform and the
// suite that made it (the endpoint document of WriteBadgeJSON cannot:
// shields.io refuses keys it does not know).
func WriteBadge(w io.Writer, r *Report) error {
	b := BadgeOf(r)
	label, msg := safetext.HTML(safetext.Line(b.Label)), safetext.HTML(safetext.Line(b.Message))
	lw, mw := textWidth(b.Label)+10, textWidth(b.Message)+10
	width := lw + mw
	title := label + ": " + msg
	_, err := fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s">
<!-- %s -->
<title>%s</title>
<linearGradient id="s" x2="0" y2="100%%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="%.1f" y="15" fill="#010101" fill-opacity=".3" textLength="%d">%s</text><text x="%.1f" y="14" textLength="%d">%s</text>
<text x="%.1f" y="15" fill="#010101" fill-opacity=".3" textLength="%d">%s</text><text x="%.1f" y="14" textLength="%d">%s</text>
</g>
</svg>
`, width, title, provenanceLine(r.Tool), title, width, lw, lw, mw, b.Hex, width,
		float64(lw)/2, lw-10, label, float64(lw)/2, lw-10, label,
		float64(lw)+float64(mw)/2, mw-10, msg, float64(lw)+float64(mw)/2, mw-10, msg)
	return err
}

// textWidth estimates the width of s in 11px Verdana, the badge font; the
// text is drawn with textLength, so a wrong guess only stretches it a
// little.
func textWidth(s string) int {
	w := 0.0
	for _, r := range s {
		switch {
		case r == ' ':
			w += 3.9
		case r == '/' || r == 'i' || r == 'l' || r == 'I' || r == ',' || r == '.':
			w += 4.3
		case r >= 'A' && r <= 'Z':
			w += 7.6
		case r >= '0' && r <= '9', r >= 'a' && r <= 'z':
			w += 7.0
		default:
			w += 9.0
		}
	}
	return int(w + 0.5)
}
