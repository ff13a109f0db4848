package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text normalises kernel-supplied text that may span lines. The result is
// valid UTF-8 whose only control characters are \n and \t:
//
//   - CRLF becomes \n (a Windows line end is still a line end);
//   - a lone CR, every other C0 control, DEL and the C1 controls are written
//     as Go-style escapes (\r, \a, \b, \f, \v, \x00, \x1b, \x7f, \u009b), so
//     no escape sequence, bell, backspace or carriage return reaches a
//     terminal and no CR ends a Markdown line;
//   - U+2028, U+2029 (line and paragraph separator) and the bidi controls
//     (U+202E and friends, which reorder what a reader sees) are written as
//     \u2028 and so on;
//   - U+FFFE and U+FFFF, which XML 1.0 forbids, likewise;
//   - each byte of invalid UTF-8 is written as \xNN.
//
// The output is therefore legal XML 1.0 character data.
func Text(s string) string {
	return normalise(s, false)
}

// Line is Text for places that hold one line, such as a table cell, a
// heading or a terminal line the harness starts: \n is written as the
// visible escape \n, so the kernel cannot start a line of its own, and a tab
// becomes a space.
func Line(s string) string {
	return normalise(s, true)
}

func normalise(s string, oneLine bool) string {
	if clean(s, oneLine) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// CRLF: the LF that follows is written on the next turn.
		case r == '\n' && oneLine:
			b.WriteString(`\n`)
		case r == '\t' && oneLine:
			b.WriteByte(' ')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unsafeRune(r):
			b.WriteString(escape(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clean reports whether s needs no change, so that the common case of plain
// text costs no allocation.
func clean(s string, oneLine bool) bool {
	for _, r := range s {
		switch {
		case r == utf8.RuneError, unsafeRune(r) && r != '\n' && r != '\t':
			// RuneError may be a real U+FFFD or an invalid byte; the slow
			// path tells them apart.
			return false
		case oneLine && (r == '\n' || r == '\t'):
			return false
		}
	}
	return true
}

// unsafeRune reports whether r must not reach a reader raw.
func unsafeRune(r rune) bool {
	return unicode.Is(unicode.Cc, r) || // C0, DEL, C1
		unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) || // U+2028, U+2029
		unicode.Is(unicode.Bidi_Control, r) ||
		r == 0xFFFE || r == 0xFFFF
}

func escape(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\r':
		return `\r`
	case '\v':
		return `\v`
	}
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
