package safetext

import (
	"strings"
)

// markdownPlain are the ASCII punctuation characters that mean nothing in
// the middle of a CommonMark, GFM or GitHub line unless another character
// the escaping covers comes first ("(" only after "]", "!" only before "["),
// left as they are so that the Markdown source stays readable. Every other
// ASCII punctuation character is backslash-escaped, which CommonMark
// guarantees is shown as itself.
const markdownPlain = `,;'"/?%()-+=!`

// MarkdownInline makes kernel text safe anywhere inline in Markdown: in
// prose, a heading, emphasis or a GFM table cell, and at the start of a line.
// It is Line (so the text cannot end the line or start a block of its own)
// followed by a backslash before every ASCII punctuation character that
// could start markup: HTML and autolinks (<), links and images ([ ]),
// emphasis and strikethrough (* _ ~), code spans (`), entities (&), table
// cells (|), headings (# and a heading's closing #s), GitHub's bare-URL and
// e-mail autolinks (: . @), math ($) and emoji (:) among them. At the start of
// the text, "-", "+" and "=" (list items, setext underlines) and the ")" of
// "1)" (an ordered list item) are escaped as well.
func MarkdownInline(s string) string {
	s = Line(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	leadingDigits := true
	for i, r := range s {
		atStart := i == 0 && (r == '-' || r == '+' || r == '=')
		afterNumber := leadingDigits && i > 0 && r == ')'
		leadingDigits = leadingDigits && r >= '0' && r <= '9'
		if r < 0x80 && isPunct(byte(r)) && (atStart || afterNumber || !strings.ContainsRune(markdownPlain, r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// MarkdownCode renders kernel text as an inline code span, for prose. The
// text is Line'd first. The delimiter is one backtick longer than any
// backtick run in the text, and padded with a space when the text starts or
// ends with a backtick, so the span cannot end early (and when it starts and
// ends with a space, which CommonMark would otherwise drop). An empty text is
// a span of one space, so that it still shows as a (blank) value.
func MarkdownCode(s string) string {
	return codeSpan(Line(s))
}

// MarkdownCellCode is MarkdownCode for a GFM table cell: a pipe is escaped
// as \| even inside the span, since GFM splits cells before it parses spans.
func MarkdownCellCode(s string) string {
	return codeSpan(strings.ReplaceAll(Line(s), "|", `\|`))
}

func codeSpan(s string) string {
	if s == "" {
		// "``" would be two literal backticks, not an empty span.
		return "` `"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	// CommonMark drops one space from each end of a span that starts and
	// ends with one; the padding is what it drops.
	spaced := strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || spaced {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

// MarkdownFence renders kernel text as a fenced code block, every line
// (fences included) prefixed by indent, for example "  " inside a list item.
// The text is normalised with Text first, so its only line ends are \n and
// every line gets the indent (a bare CR would otherwise end a line for
// CommonMark without being indented, and escape the block). The fence is a
// run of backticks longer than any in the text, at least three, so no line
// of the text can close it. Tabs that indent a line are expanded to spaces
// (tab stops of four, as CommonMark counts them), since a container's
// indent would otherwise eat part of one, and a line of only white space is
// written empty, as a container would read it. The result ends with a
// newline.
func MarkdownFence(s, indent string) string {
	s = Text(s)
	fence := fenceFor(s)
	var b strings.Builder
	b.WriteString(indent + fence + "\n")
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(indent + expandLeadingTabs(line) + "\n")
	}
	b.WriteString(indent + fence + "\n")
	return b.String()
}

// expandLeadingTabs replaces the tabs in line's leading white space with
// spaces to the next multiple of four columns, and a blank line with "".
func expandLeadingTabs(line string) string {
	rest := strings.TrimLeft(line, " \t")
	if rest == "" {
		return ""
	}
	lead := line[:len(line)-len(rest)]
	if !strings.Contains(lead, "\t") {
		return line
	}
	var b strings.Builder
	for _, c := range []byte(lead) {
		if c == '\t' {
			b.WriteString(strings.Repeat(" ", 4-b.Len()%4))
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String() + rest
}

// fenceFor returns the backtick fence MarkdownFence uses for s: one
// backtick longer than the longest run in s, and at least three.
func fenceFor(s string) string {
	return strings.Repeat("`", max(3, longestRun(s, '`')+1))
}

func longestRun(s string, c rune) int {
	best, cur := 0, 0
	for _, r := range s {
		if r == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}
