package safetext_test

import (
	"regexp"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/internal/safetext"
)

func TestMermaid(t *testing.T) {
	got := safetext.Mermaid("a;b #35; <br>%%{init}%%\r\n`x`: $$y$$ é")
	want := "a#59;b #35;35#59; #60;br#62;#37;#37;#123;init#125;#37;#37;#92;n#96;x#96;#58; #36;#36;y#36;#36; #233;"
	if got != want {
		t.Errorf("Mermaid = %q\nwant      %q", got, want)
	}
}

// mermaidSafe is what Mermaid's output may hold: the plain characters and
// entity codes.
var mermaidSafe = regexp.MustCompile(`^(?:[A-Za-z0-9 .,_\-+=()\[\]/!?@]|#[0-9]+;)*$`)

var mermaidEntity = regexp.MustCompile(`#([0-9]+);`)

func TestMermaidProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := hostileString().Draw(t, "s")
		out := safetext.Mermaid(s)
		if !mermaidSafe.MatchString(out) {
			t.Fatalf("Mermaid(%q) = %q holds a character Mermaid could read as syntax", s, out)
		}
		// What Mermaid shows is Line(s): every entity decodes to its rune.
		back := mermaidEntity.ReplaceAllStringFunc(out, func(e string) string {
			n, _ := strconv.Atoi(e[1 : len(e)-1])
			return string(rune(n))
		})
		if want := safetext.Line(s); back != want {
			t.Fatalf("Mermaid(%q) shows %q, want Line: %q", s, back, want)
		}
	})
}
