package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/spec"
)

// FuzzHostileText runs any kernel string through every writer with the same
// checks as TestHostileText (the HTML page and the Markdown report's Mermaid
// diagrams included), and through the JSON report as the CLI writes
// it (redacted, then validated against spec/report.schema.json). The seeds
// are the hostile strings; testdata/fuzz/FuzzHostileText holds what fuzzing
// found, replayed by go test.
func FuzzHostileText(f *testing.F) {
	testrace.SkipUnderRace(f)
	f.Setenv(secretTokenName, secretToken)
	f.Setenv(secretPassName, secretPass)
	for _, h := range hostile {
		f.Add(h.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if saysPartOfASecret(s) {
			// A kernel that writes half a secret without the whole of it
			// has not leaked one; noSecret could not tell the two apart.
			t.Skip("the input itself holds part of a secret")
		}
		r := hostileReport(s)
		checkText(t, r)
		checkMarkdown(t, r, "")
		checkJUnit(t, r)
		checkHTML(t, s, "")
		checkMermaid(t, r)
		checkJSON(t, s)
	})
}

// saysPartOfASecret reports whether s, with every whole secret taken out,
// still holds a piece of one that noSecret looks for.
func saysPartOfASecret(s string) bool {
	for _, secret := range []string{secretToken, secretPass} {
		enc, _ := json.Marshal(secret)
		escaped := strings.Trim(string(enc), `"`)
		rest := strings.ReplaceAll(strings.ReplaceAll(s, secret, ""), escaped, "")
		for _, form := range []string{secret, secret[:len(secret)/2], escaped} {
			if strings.Contains(rest, form) {
				return true
			}
		}
	}
	return false
}

// checkJSON writes the JSON report of a run in which the kernel said s, as
// the CLI does (Redact, then WriteJSON), and checks that it matches the
// report schema, holds no secret, and still says what the kernel said.
func checkJSON(t *testing.T, s string) {
	t.Helper()
	r := hostileReport(s)
	// Scenario names come from the feature files, not from the kernel, and
	// the JSON report keeps harness text as written (see TestRedactReport).
	for i := range r.Scenarios {
		if r.Scenarios[i].Name == "max_turns "+s {
			r.Scenarios[i].Name = "max_turns"
		}
	}
	Redact(r, nil)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if err := ValidateJSON(spec.ReportSchema, buf.Bytes()); err != nil {
		t.Fatalf("JSON report does not match the schema: %v\n%s", err, buf.Bytes())
	}
	noSecret(t, "JSON", buf.String())
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("JSON report does not read back: %v", err)
	}
	// Nothing the kernel said is dropped: each field reads back as JSON
	// writes the redacted text (invalid UTF-8 becomes U+FFFD).
	asJSON := func(s string) string {
		b, _ := json.Marshal(s)
		var out string
		_ = json.Unmarshal(b, &out)
		return out
	}
	if got, want := back.Kernel.Name, asJSON(r.Kernel.Name); got != want {
		t.Errorf("kernel name reads back as %q, want %q", got, want)
	}
	if len(back.Scenarios) != len(r.Scenarios) {
		t.Fatalf("JSON report has %d scenarios, want %d", len(back.Scenarios), len(r.Scenarios))
	}
	for i, sc := range r.Scenarios {
		if got, want := back.Scenarios[i].Failure, asJSON(sc.Failure); got != want {
			t.Errorf("scenario %d failure reads back as %q, want %q", i, got, want)
		}
	}
}
