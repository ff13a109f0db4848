package safetext_test

import (
	"html"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/internal/safetext"
)

func TestHTML(t *testing.T) {
	got := safetext.HTML("<img src=\"http://x\" onerror='a()'> & \x1b[2J\r\nnext")
	want := "&lt;img src=&#34;http://x&#34; onerror=&#39;a()&#39;&gt; &amp; \\x1b[2J\nnext"
	if got != want {
		t.Errorf("HTML = %q, want %q", got, want)
	}
}

func TestHTMLProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := hostileString().Draw(t, "s")
		out := safetext.HTML(s)
		if strings.ContainsAny(out, `<>"'`) {
			t.Fatalf("HTML(%q) = %q holds markup characters", s, out)
		}
		if r, bad := unsafeIn(out, '\n', '\t'); bad {
			t.Fatalf("HTML(%q) = %q holds %U", s, out, r)
		}
		if back := html.UnescapeString(out); back != safetext.Text(s) {
			t.Fatalf("HTML(%q) reads back as %q, want Text: %q", s, back, safetext.Text(s))
		}
	})
}
