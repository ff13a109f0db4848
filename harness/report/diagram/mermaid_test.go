package diagram

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func renderMermaid(t *testing.T, d *Diagram) string {
	t.Helper()
	var buf bytes.Buffer
	if err := d.Mermaid(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestMermaid(t *testing.T) {
	got := renderMermaid(t, New(sample(), 12))
	want := `sequenceDiagram
    participant K as kernel
    participant C as context
    participant M as model
    participant T as tool providers
    participant H as hook subscribers
    participant F as frontend
    participant R as recorder
    participant X as harness
    Note over K,X: 12 earlier messages left out
    K->>C: [1] context/assemble
    C-->>K: [1] ok
    K->>M: [3] model/stream
    M-->>K: [3] ok
    K->>T: [5] invoke read
    K--)R: [6] cost 0.001
    K->>H: [7] hook pre-tool-call O1
    H--xK: [7] error#58; denied
    T-->>K: [5] ok
    K->>F: [10] permission write
    Note right of F: [10] never answered
    X->>K: [11] harness spawns child
`
	if got != want {
		t.Errorf("Mermaid:\n%s\nwant:\n%s", got, want)
	}
}

// mermaidLine is the grammar of every line Mermaid writes: a participant
// of the fixed set, an arrow between two of them, or a note, each text made
// only of plain characters and entity codes.
var mermaidLine = regexp.MustCompile(`^(sequenceDiagram|    participant [KCMTHFRX] as [a-z ]+|    [KCMTHFRX](->>|-->>|--\)|--x|-x)[KCMTHFRX]: (?:[A-Za-z0-9 .,_\-+=()\[\]/!?@]|#[0-9]+;)+|    Note (over [KCMTHFRX](,[KCMTHFRX])?|right of [KCMTHFRX]): (?:[A-Za-z0-9 .,_\-+=()\[\]/!?@]|#[0-9]+;)+)$`)

// TestMermaidHostile: kernel text stays inside its message, in every kind
// of message, and never holds a backtick that could end the code block.
func TestMermaidHostile(t *testing.T) {
	for _, h := range hostileTexts {
		d := New(hostileMessages(h), 0)
		out := renderMermaid(t, d)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		// The header, the participants, seven arrows and one note.
		if want := 1 + len(d.Lifelines) + 8; len(lines) != want {
			t.Errorf("label %q: %d lines, want %d:\n%s", h, len(lines), want, out)
		}
		for _, l := range lines {
			if !mermaidLine.MatchString(l) {
				t.Errorf("label %q: line outside the grammar: %q", h, l)
			}
		}
		if strings.Contains(out, "`") {
			t.Errorf("label %q: output holds a backtick", h)
		}
	}
}

func TestMermaidEmpty(t *testing.T) {
	got := renderMermaid(t, New(nil, 5))
	want := "sequenceDiagram\n    participant K as kernel\n    Note over K: 5 earlier messages left out\n    Note over K: no messages recorded\n"
	if got != want {
		t.Errorf("Mermaid of nothing:\n%s\nwant:\n%s", got, want)
	}
}
