package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/internal/safetext"
)

// Redact takes the secrets out of every string a kernel controls, so that
// the JSON report, written as the Report holds it, carries none.
func TestRedactReport(t *testing.T) {
	const secret = "s3cr3t-value-9f8e"
	env := []string{"CI_DEPLOY_TOKEN=" + secret, "HOME=/home/ci"}
	says := "kernel says " + secret
	log := []string{`← {"stderr":"` + secret + `"}`, "plain line"}
	k := Kernel{
		Name: says, Version: says, Capabilities: []string{says},
		Readings: map[string]string{"doomloop.window": says, secret: "3"},
		Command:  "kernel --token " + secret,
	}
	scs := []ScenarioResult{
		{File: "a.feature", Line: 1, Name: "fails", Tags: []string{"@TA-02"}, Status: Fail, Failure: says, Log: log},
		{File: "a.feature", Line: 2, Name: "errs", Tags: []string{"@TA-03"}, Status: Error, Failure: says, Log: []string{says}},
		{File: "a.feature", Line: 3, Name: "skips", Tags: []string{"@HD-07"}, Status: Skipped, Failure: says},
	}
	r := Build(testCatalog(), k, scs, started, time.Second)
	if !strings.Contains(string(writeJSON(t, r)), secret) {
		t.Fatal("the test report holds no secret to redact")
	}

	Redact(r, safetext.NewRedactor(env))
	out := string(writeJSON(t, r))
	if strings.Contains(out, secret) {
		t.Errorf("JSON report holds the secret after Redact:\n%s", out)
	}
	if n := strings.Count(out, "[redacted:CI_DEPLOY_TOKEN]"); n < 10 {
		t.Errorf("%d redaction markers, want one per kernel string (at least 10):\n%s", n, out)
	}
	if r.Kernel.Readings["[redacted:CI_DEPLOY_TOKEN]"] != "3" || r.Kernel.Command != "kernel --token [redacted:CI_DEPLOY_TOKEN]" {
		t.Errorf("kernel after Redact = %+v", r.Kernel)
	}
	// The runner's records are not Redact's to change.
	if log[0] != `← {"stderr":"`+secret+`"}` {
		t.Errorf("Redact wrote into the caller's log: %q", log[0])
	}
	// Harness text stays as it was.
	if r.Scenarios[0].Name != "fails" || r.Requirements[0].Title != "RunTurn step order" {
		t.Errorf("Redact changed harness text: %q %q", r.Scenarios[0].Name, r.Requirements[0].Title)
	}
	if err := ValidateJSON(readSchema(t), []byte(out)); err != nil {
		t.Errorf("redacted report does not validate: %v", err)
	}
}

// With no redactor, Redact uses conform's own environment, so forgetting to
// pass one never leaks.
func TestRedactReportEnvironment(t *testing.T) {
	t.Setenv("CONFORM_REDACT_TEST_SECRET", "env-secret-4711")
	r := &Report{Scenarios: []ScenarioResult{{Status: Fail, Failure: "got env-secret-4711"}}}
	Redact(r, nil)
	if got := r.Scenarios[0].Failure; got != "got [redacted:CONFORM_REDACT_TEST_SECRET]" {
		t.Errorf("failure after Redact = %q", got)
	}
	Redact(nil, nil) // no panic
}

// The writers take their redactor from the caller in tests; this checks the
// seam each public writer uses reads what it is given.
func TestWritersRedactWithInjectedSecrets(t *testing.T) {
	const secret = "injected-secret-2718"
	red := safetext.NewRedactor([]string{"X_API_KEY=" + secret})
	r := Build(testCatalog(), Kernel{Name: secret}, []ScenarioResult{
		{File: "a.feature", Line: 1, Tags: []string{"@TA-02"}, Status: Fail, Failure: "saw " + secret, Log: []string{secret}},
	}, started, time.Second)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"markdown": func(b *bytes.Buffer) error { return writeMarkdown(b, r, red) },
		"text":     func(b *bytes.Buffer) error { return writeText(b, r, red) },
		"junit":    func(b *bytes.Buffer) error { return writeJUnit(b, r, red) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Contains(buf.String(), secret) || !strings.Contains(strings.ReplaceAll(buf.String(), `\`, ""), "redacted:X_API_KEY") {
			t.Errorf("%s output is not redacted:\n%s", name, buf.String())
		}
	}
}
