package safetext_test

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"pgregory.net/rapid"

	"github.com/agentconform/conform/internal/safetext"
)

// gfm parses as GitHub does as far as goldmark can: tables, strikethrough,
// bare-URL autolinks and task lists on.
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM))

func parse(md string) ast.Node {
	return gfm.Parser().Parse(text.NewReader([]byte(md)))
}

// kinds lists the node kinds of a document in document order, text aside.
func kinds(doc ast.Node) []string {
	var out []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Kind() != ast.KindText && n.Kind() != ast.KindString {
			out = append(out, n.Kind().String())
		}
		return ast.WalkContinue, nil
	})
	return out
}

// render is what a reader sees of md: goldmark's HTML with the tags of the
// structure we expect stripped and the entities decoded.
func render(t *rapid.T, md string, strip ...string) string {
	var buf bytes.Buffer
	if err := gfm.Convert([]byte(md), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, tag := range strip {
		out = strings.ReplaceAll(out, tag, "")
	}
	return html.UnescapeString(strings.TrimSpace(out))
}

func TestMarkdownInline(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"TA-02 max_turns bound", `TA-02 max\_turns bound`},
		{"<img src=http://x>", `\<img src=http\://x\>`},
		{"![a](b) [c](d)", `!\[a\](b) \[c\](d)`},
		{"www.example.com a@b.c", `www\.example\.com a\@b\.c`},
		{"a | b", `a \| b`},
		{"x\r**y**\nz", `x\\r\*\*y\*\*\\nz`},
		{"- item", `\- item`},
		{"12) item", `12\) item`},
		{"= setext", `\= setext`},
		{"1.5 (rounded)", `1\.5 (rounded)`},
		{"", ""},
	} {
		if got := safetext.MarkdownInline(c.in); got != c.want {
			t.Errorf("MarkdownInline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

var spaces = regexp.MustCompile(`^ +| +$`)

// Whatever the text, MarkdownInline makes one paragraph of plain text that
// reads exactly as Line(s), in prose, at the start of a line and in a table
// cell, with goldmark's GFM extensions (autolinks included) on.
func TestMarkdownInlineProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := hostileString().Draw(t, "s")
		want := safetext.Line(s)
		esc := safetext.MarkdownInline(s)

		prose := "Kernel: " + esc + " end"
		if got := kinds(parse(prose)); strings.Join(got, " ") != "Document Paragraph" {
			t.Fatalf("%q makes %v", prose, got)
		}
		if got := render(t, prose, "<p>", "</p>"); got != "Kernel: "+want+" end" {
			t.Fatalf("%q reads %q, want %q", prose, got, "Kernel: "+want+" end")
		}

		// At the start of a line; CommonMark drops leading and trailing
		// spaces of a paragraph, and four of them make code, so the text
		// starts with something else here.
		start := strings.TrimLeft(s, " \t")
		if strings.TrimSpace(safetext.Line(start)) != "" {
			got := kinds(parse(safetext.MarkdownInline(start) + "\n"))
			if strings.Join(got, " ") != "Document Paragraph" {
				t.Fatalf("%q at the start of a line makes %v", safetext.MarkdownInline(start), got)
			}
		}

		table := "| a | b |\n|---|---|\n| x | " + esc + " |\n"
		doc := parse(table)
		if got := strings.Join(kinds(doc), " "); got != "Document Table TableHeader TableCell TableCell TableRow TableCell TableCell" {
			t.Fatalf("%q makes %v", table, got)
		}
		cell := render(t, table, "<table>", "</table>", "<thead>", "</thead>", "<tbody>", "</tbody>", "<tr>", "</tr>", "\n")
		if wantCell := "<th>a</th><th>b</th><td>x</td><td>" + spaces.ReplaceAllString(want, "") + "</td>"; cell != wantCell {
			t.Fatalf("table cell reads %q, want %q", cell, wantCell)
		}
	})
}

func TestMarkdownCode(t *testing.T) {
	for _, c := range []struct{ in, want, cell string }{
		{"a`b", "``a`b``", "``a`b``"},
		{"`x`", "`` `x` ``", "`` `x` ``"},
		{"a|b", "`a|b`", "`a\\|b`"},
		{"x\ry", "`x\\ry`", "`x\\ry`"},
		{"", "` `", "` `"},
	} {
		if got := safetext.MarkdownCode(c.in); got != c.want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := safetext.MarkdownCellCode(c.in); got != c.cell {
			t.Errorf("MarkdownCellCode(%q) = %q, want %q", c.in, got, c.cell)
		}
	}
}

// A code span holds Line(s) and nothing else, in prose and in a table cell.
func TestMarkdownCodeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := hostileString().Draw(t, "s")
		if safetext.Line(s) == "" {
			return
		}
		for _, md := range []string{
			"Command: " + safetext.MarkdownCode(s) + " end",
			"| a |\n|---|\n| " + safetext.MarkdownCellCode(s) + " |\n",
		} {
			var spans []ast.Node
			_ = ast.Walk(parse(md), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if entering && n.Kind() == ast.KindCodeSpan {
					spans = append(spans, n)
					return ast.WalkSkipChildren, nil
				}
				if entering && n.Kind() != ast.KindText && !containerKind(n.Kind()) {
					t.Fatalf("%q makes a %s", md, n.Kind())
				}
				return ast.WalkContinue, nil
			})
			if len(spans) != 1 {
				t.Fatalf("%q makes %d code spans", md, len(spans))
			}
			got := render(t, md)
			if want := safetext.Line(s); !strings.Contains(got, "<code>"+want+"</code>") {
				t.Fatalf("%q renders %q, want code %q", md, got, want)
			}
		}
	})
}

func containerKind(k ast.NodeKind) bool {
	switch k {
	case ast.KindDocument, ast.KindParagraph, east.KindTable, east.KindTableHeader, east.KindTableRow, east.KindTableCell:
		return true
	}
	return false
}

func TestMarkdownFence(t *testing.T) {
	got := safetext.MarkdownFence("a ```` b\r"+"**bold**\r\nc", "  ")
	want := "  `````\n  a ```` b\\r**bold**\n  c\n  `````\n"
	if got != want {
		t.Errorf("MarkdownFence = %q, want %q", got, want)
	}
}

// A fenced block holds Text(s) and the document holds nothing else, at the
// top level and inside a list item.
func TestMarkdownFenceProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := hostileString().Draw(t, "s")
		var lines []string
		for _, l := range strings.Split(safetext.Text(s), "\n") {
			lines = append(lines, expand(l))
		}
		want := strings.Join(lines, "\n") + "\n"
		for _, c := range []struct{ md, shape string }{
			{safetext.MarkdownFence(s, "") + "\nafter\n", "Document FencedCodeBlock Paragraph"},
			{"- item\n\n" + safetext.MarkdownFence(s, "  ") + "\nafter\n", "Document List ListItem Paragraph FencedCodeBlock Paragraph"},
		} {
			doc := parse(c.md)
			if got := strings.Join(kinds(doc), " "); got != c.shape {
				t.Fatalf("%q makes %s, want %s", c.md, got, c.shape)
			}
			var code string
			_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if entering && n.Kind() == ast.KindFencedCodeBlock {
					var b strings.Builder
					for i := 0; i < n.Lines().Len(); i++ {
						seg := n.Lines().At(i)
						b.Write(seg.Value([]byte(c.md)))
					}
					code = b.String()
				}
				return ast.WalkContinue, nil
			})
			if code != want {
				t.Fatalf("fenced block of %q holds %q, want %q", c.md, code, want)
			}
		}
	})
}

// expand is the test's own tab expansion of a line's indent; a blank line
// is empty.
func expand(line string) string {
	col := 0
	for i, c := range line {
		switch c {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return strings.Repeat(" ", col) + line[i:]
		}
	}
	return ""
}
