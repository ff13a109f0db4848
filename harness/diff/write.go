package diff

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentconform/conform/internal/safetext"
)

// WriteText writes the comparison for a terminal, regressions first.
func WriteText(w io.Writer, r *Result) error {
	var s strings.Builder
	fmt.Fprintf(&s, "conform diff: %s → %s\n", safetext.Line(r.Old.Name), safetext.Line(r.New.Name))
	fmt.Fprintf(&s, "  old: %s (%s): %s\n", safetext.Line(r.Old.Kernel), safetext.Line(r.Old.Conform), safetext.Line(r.Old.Compliance))
	fmt.Fprintf(&s, "  new: %s (%s): %s\n", safetext.Line(r.New.Kernel), safetext.Line(r.New.Conform), safetext.Line(r.New.Compliance))
	if len(r.Requirements)+len(r.Scenarios) == 0 {
		s.WriteString("No requirement verdict and no scenario outcome changed.\n")
	}
	list := func(title string, cs []Change) {
		if len(cs) == 0 {
			return
		}
		fmt.Fprintf(&s, "\n%s (%d changed):\n", title, len(cs))
		for _, c := range cs {
			fmt.Fprintf(&s, "  %-11s %-28s %s → %s  %s\n", strings.ToUpper(string(c.Kind)), safetext.Line(c.Subject), orDash(c.Old), orDash(c.New), safetext.Line(c.Name))
			if c.Why != "" {
				fmt.Fprintf(&s, "              %s\n", safetext.Line(firstLine(c.Why)))
			}
		}
	}
	list("Requirements", r.Requirements)
	list("Scenarios", r.Scenarios)
	fmt.Fprintf(&s, "\n%d regressions\n", r.Regressions())
	_, err := io.WriteString(w, s.String())
	return err
}

// WriteMarkdown writes the comparison for a pull-request comment.
func WriteMarkdown(w io.Writer, r *Result) error {
	var s strings.Builder
	n := r.Regressions()
	head := "✅ no regression"
	if n > 0 {
		head = fmt.Sprintf("❌ %d %s", n, plural(n, "regression", "regressions"))
	}
	fmt.Fprintf(&s, "## conform diff: %s\n\n", head)
	fmt.Fprintf(&s, "| | report | kernel | conform | compliance |\n|---|---|---|---|---|\n")
	for _, x := range []struct {
		k string
		s Side
	}{{"old", r.Old}, {"new", r.New}} {
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s |\n", x.k, safetext.MarkdownCellCode(x.s.Name), safetext.MarkdownInline(x.s.Kernel),
			safetext.MarkdownInline(x.s.Conform), safetext.MarkdownInline(x.s.Compliance))
	}
	if len(r.Requirements)+len(r.Scenarios) == 0 {
		s.WriteString("\nNo requirement verdict and no scenario outcome changed.\n")
	}
	table := func(title string, cs []Change) {
		if len(cs) == 0 {
			return
		}
		fmt.Fprintf(&s, "\n### %s (%d changed)\n\n| change | | was | now | |\n|---|---|---|---|---|\n", title, len(cs))
		for _, c := range cs {
			mark := map[Kind]string{Regression: "❌ regression", Improvement: "✅ improvement", Changed: "changed", Added: "added", Removed: "removed"}[c.Kind]
			detail := safetext.MarkdownInline(c.Name)
			if c.Why != "" {
				detail += "<br>" + safetext.MarkdownCellCode(firstLine(c.Why))
			}
			fmt.Fprintf(&s, "| %s | %s | %s | %s | %s |\n", mark, safetext.MarkdownCellCode(c.Subject), orDash(c.Old), orDash(c.New), detail)
		}
	}
	table("Requirements", r.Requirements)
	table("Scenarios", r.Scenarios)
	_, err := io.WriteString(w, s.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
