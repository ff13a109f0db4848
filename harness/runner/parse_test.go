package runner

import (
	"fmt"
	"testing"
)

// A content is parsed once, the same document comes back, and the memo
// stops growing at its bound.
func TestParseGherkinOncePerContent(t *testing.T) {
	data := []byte("Feature: memo\n  Scenario: one\n    Given a step\n")
	a, err := parseGherkin(data)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := parseGherkin(append([]byte(nil), data...)); b != a {
		t.Error("the same content was parsed again")
	}
	if _, err := parseGherkin([]byte("# language: xx-unknown\nFeature: x\n")); err == nil {
		t.Error("a malformed document parsed")
	}
	for i := range maxParsed + 10 {
		parseGherkin(fmt.Appendf(nil, "Feature: f%d\n", i))
	}
	parsedMu.Lock()
	n := len(parsed)
	parsedMu.Unlock()
	if n > maxParsed {
		t.Errorf("%d documents kept, bound %d", n, maxParsed)
	}
}
