package baseline

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/safetext"
)

// WriteText writes the baseline section for a terminal. Text from the
// baseline and the report is escaped like kernel text.
func WriteText(w io.Writer, b *report.BaselineResult) error {
	if b == nil {
		return nil
	}
	var s strings.Builder
	fmt.Fprintf(&s, "\nBaseline %s: %d expected to fail, %d stale, %d unchecked, %d failing and not listed\n",
		safetext.Line(b.File), len(b.ExpectedFail), len(b.Stale), len(b.Unchecked), len(b.Unlisted))
	group := func(title string, items []report.BaselineItem) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&s, "  %s:\n", title)
		for _, it := range items {
			fmt.Fprintf(&s, "    %-6s %-12s %s\n", it.ID, it.Status, safetext.Line(describe(it)))
		}
	}
	group("expected fail (listed; does not fail the run)", b.ExpectedFail)
	staleTitle := "stale (listed, no longer fails; remove it)"
	if b.Strict {
		staleTitle = "stale (listed, no longer fails; fails the run: --strict-baseline)"
	}
	group(staleTitle, b.Stale)
	group("failing and not listed (fails the run at the --require level)", b.Unlisted)
	_, err := io.WriteString(w, s.String())
	return err
}

// WriteMarkdown writes the baseline section for a CI step summary or a
// pull-request comment.
func WriteMarkdown(w io.Writer, b *report.BaselineResult) error {
	if b == nil {
		return nil
	}
	var s strings.Builder
	fmt.Fprintf(&s, "\n## Baseline\n\nKnown failures from %s: **%d expected to fail**, **%d stale**, %d unchecked, **%d failing and not listed**.",
		safetext.MarkdownCode(b.File), len(b.ExpectedFail), len(b.Stale), len(b.Unchecked), len(b.Unlisted))
	if b.Strict {
		s.WriteString(" Stale entries fail the run (`--strict-baseline`).")
	}
	s.WriteString("\n\n")
	if len(b.ExpectedFail)+len(b.Stale)+len(b.Unlisted) == 0 {
		_, err := io.WriteString(w, s.String())
		return err
	}
	s.WriteString("| | Requirement | Verdict | Scenarios | Reason | Note |\n|---|---|---|---|---|---|\n")
	row := func(kind string, items []report.BaselineItem) {
		for _, it := range items {
			reason := safetext.MarkdownInline(it.Reason)
			if it.Link != "" {
				reason += " (" + safetext.MarkdownCellCode(it.Link) + ")"
			}
			var refs []string
			for _, r := range it.Scenarios {
				refs = append(refs, safetext.MarkdownCellCode(r))
			}
			fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s |\n", kind, safetext.MarkdownInline(it.ID), it.Status,
				strings.Join(refs, " "), reason, safetext.MarkdownInline(it.Note))
		}
	}
	row("🆕 not listed", b.Unlisted)
	row("🧹 stale", b.Stale)
	row("expected fail", b.ExpectedFail)
	// Unchecked entries are counted above, not listed: a tag selection
	// leaves most of a baseline unchecked, and the list would bury the rest.
	_, err := io.WriteString(w, s.String())
	return err
}

func describe(it report.BaselineItem) string {
	var parts []string
	if len(it.Scenarios) > 0 {
		parts = append(parts, strings.Join(it.Scenarios, " "))
	}
	if it.Reason != "" {
		parts = append(parts, it.Reason)
	}
	if it.Link != "" {
		parts = append(parts, it.Link)
	}
	if it.Note != "" {
		parts = append(parts, "("+it.Note+")")
	}
	return strings.Join(parts, " — ")
}
