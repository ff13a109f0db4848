package runner

import (
	"slices"
	"testing"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/internal/testrace"
)

func TestAnchoredPrefix(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`^the session allows at most (\d+) turns?$`, "the session allows at most "},
		{`^(\d+) calls were in flight$`, ""},
		{`^abc+$`, "ab"},     // the repeated c is not literal
		{`^abc?d$`, "ab"},    // nor an optional one
		{`^(?i)abc$`, ""},    // case folded: no case-sensitive prefix
		{`^ab(?i)cd$`, "ab"}, // up to where folding starts
		{`abc$`, ""},         // not anchored
		{`^a$|^b$`, ""},      // alternatives
		{`^(`, ""},           // does not parse
	} {
		if got := anchoredPrefix(c.expr); got != c.want {
			t.Errorf("anchoredPrefix(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
}

// The prefix only skips patterns a step cannot match: every step of the
// embedded suite, and near misses of it, matches the same patterns with
// and without it. Without the race detector (make e2e): under it a regexp
// match costs ten times as much, which is why the prefixes exist.
func TestStepPrefixesLoseNoMatch(t *testing.T) {
	testrace.SkipUnderRace(t)
	refs, err := Select(features.FS, ".", "")
	if err != nil {
		t.Fatal(err)
	}
	pats := library()
	seen := map[string]bool{}
	for _, ref := range refs {
		for _, st := range ref.Steps {
			if seen[st.Text] {
				continue
			}
			seen[st.Text] = true
			for _, text := range []string{st.Text, st.Text[1:], "x" + st.Text, st.Text + " "} {
				var all []string
				for _, p := range pats {
					if p.re.MatchString(text) {
						all = append(all, p.re.String())
					}
				}
				if got := matchingSteps(pats, text); !slices.Equal(got, all) {
					t.Errorf("%q: matches %q with prefixes, %q without", text, got, all)
				}
			}
		}
	}
}

// BenchmarkCheckSteps is the step check of a whole-suite run's start-up.
func BenchmarkCheckSteps(b *testing.B) {
	refs, err := Select(features.FS, ".", "")
	if err != nil {
		b.Fatal(err)
	}
	library()
	for b.Loop() {
		if err := CheckSteps(refs); err != nil {
			b.Fatal(err)
		}
	}
}
