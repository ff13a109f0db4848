package safetext

import (
	"strconv"
	"strings"
)

// mermaidPlain are the characters Mermaid shows as themselves anywhere in
// the text of a sequence diagram's message or note, besides ASCII letters,
// digits and the space.
const mermaidPlain = `.,_-+=()[]/!?@`

// Mermaid makes kernel text safe as the text of a message or note in a
// Mermaid sequenceDiagram (after the "A->>B: " the harness writes): Line,
// then every character other than an ASCII letter, digit, space or one of
// .,_-+=()[]/!?@ as a Mermaid entity code "#N;" (N the decimal code point),
// which Mermaid shows as the character itself.
//
// Mermaid's lexer ends a message at a newline, "#" or ";", reads "%%" as a
// comment or directive, "<br>" and other HTML as markup, "$$" as math,
// ":" after "style" or "classDef" as styling, and "wrap:" as an option; its
// entity placeholders are non-ASCII. Coding everything else leaves none of
// them to the kernel, and no backtick, so the text cannot end the code
// block that holds the diagram either.
func Mermaid(s string) string {
	s = Line(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for _, r := range s {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ' ' || strings.ContainsRune(mermaidPlain, r)) {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(int(r)))
		b.WriteByte(';')
	}
	return b.String()
}
