package safetext_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/internal/safetext"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"crlf\r\nline", "crlf\nline"},
		{"bare\r**bold**", `bare\r**bold**`},
		{"cr\r\r\n", "cr\\r\n"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\a`},
		{"bs\b nul\x00 del\x7f vt\v ff\f", `bs\b nul\x00 del\x7f vt\v ff\f`},
		{"c1 \u009b31m \u0085", `c1 \u009b31m \u0085`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"bidi \u202eliaf\u202c \u2066\u200f", `bidi \u202eliaf\u202c \u2066\u200f`},
		{"nonchar \ufffe\uffff", `nonchar \ufffe\uffff`},
		{"bad \xff\xfe \xc3( \xed\xa0\x80", `bad \xff\xfe \xc3( \xed\xa0\x80`},
		{"real \ufffd stays, é → ✓ 🙂", "real \ufffd stays, é → ✓ 🙂"},
		{"", ""},
	} {
		if got := safetext.Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"one line", "one line"},
		{"a\nb\r\nc\rd", `a\nb\nc\rd`},
		{"tab\there", "tab here"},
		{"k\n\nCompliance: compliant", `k\n\nCompliance: compliant`},
		{"\x1b[2J", `\x1b[2J`},
	} {
		if got := safetext.Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Plain text, by far the most common, is returned as it is.
func TestTextPlainDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("features/turn.feature:40: expected 3 turns, got 4 → ✓\n", 20)
	if n := testing.AllocsPerRun(100, func() { _ = safetext.Text(s) }); n != 0 {
		t.Errorf("Text of plain text allocates %v times", n)
	}
}

// hostileFragments are the pieces the generated strings are made of: every
// control and markup character the escaping must handle, and some text.
var hostileFragments = []string{
	"\r", "\n", "\r\n", "\t", "\x1b", "\x1b[2J", "\x1b]0;t\x07", "\x00", "\x07", "\x08", "\x7f",
	"\u0085", "\u009b", "\u2028", "\u2029", "\u202e", "\u2066", "\ufffe", "\ufffd", "\xff", "\xc3", "\xed\xa0\x80",
	"`", "```", "~~~", "*", "**", "_", "__", "~~", "[", "]", "(", ")", "![", "](", "<", ">", "&", "&amp;", "&#60;",
	"#", "# ", "|", "\\", "www.", "http://", "https://x.y", "mailto:", "@", ".", ":", ":smile:", "$", "$$",
	"-", "---", "+", "=", "===", "1.", "1)", "12)", "{#id}", "^", " ", "    ", "<img src=http://x>",
	"<!--", "]]>", "<![CDATA[", "a", "b c", "é", "🙂", "Compliance: compliant at every level",
}

// hostileString draws strings made of hostile fragments and arbitrary bytes.
func hostileString() *rapid.Generator[string] {
	piece := rapid.OneOf(
		rapid.SampledFrom(hostileFragments),
		rapid.SampledFrom(hostileFragments),
		rapid.String(),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 4), func(b []byte) string { return string(b) }),
	)
	return rapid.Map(rapid.SliceOfN(piece, 0, 12), func(ps []string) string { return strings.Join(ps, "") })
}

// unsafeIn reports the first rune of s, other than allowed, that must not
// reach a reader raw (utf8.RuneError for invalid UTF-8).
func unsafeIn(s string, allowed ...rune) (rune, bool) {
	if !utf8.ValidString(s) {
		return utf8.RuneError, true
	}
	for _, r := range s {
		if strings.ContainsRune(string(allowed), r) {
			continue
		}
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) ||
			unicode.Is(unicode.Bidi_Control, r) || r == 0xFFFE || r == 0xFFFF {
			return r, true
		}
	}
	return 0, false
}

func TestTextProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := hostileString().Draw(t, "s")
		text, line := safetext.Text(s), safetext.Line(s)
		if r, bad := unsafeIn(text, '\n', '\t'); bad {
			t.Fatalf("Text(%q) = %q holds %U", s, text, r)
		}
		if r, bad := unsafeIn(line); bad {
			t.Fatalf("Line(%q) = %q holds %U", s, line, r)
		}
		if safetext.Text(text) != text || safetext.Line(line) != line {
			t.Fatalf("normalising twice changes %q", s)
		}
		// Text never makes a line break the input did not have.
		if strings.Count(text, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Text(%q) = %q changed the number of line breaks", s, text)
		}
		// Text's output is legal XML 1.0 character data: it survives a
		// round trip through encoding/xml exactly.
		var buf bytes.Buffer
		if err := xml.EscapeText(&buf, []byte(text)); err != nil {
			t.Fatal(err)
		}
		var back struct {
			Body string `xml:",chardata"`
		}
		if err := xml.Unmarshal([]byte("<a>"+buf.String()+"</a>"), &back); err != nil || back.Body != text {
			t.Fatalf("Text(%q) = %q is not XML character data: %v, read back %q", s, text, err, back.Body)
		}
	})
}
