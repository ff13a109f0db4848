package pluginconform

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
)

// A plugin that echoes its secret everywhere fails PL-24, with every place
// named, and no report, in any format, carries the secret itself, not even
// the stderr tail quoted when it crashes on a cancel.
func TestSecretsNeverReachTheReport(t *testing.T) {
	testrace.SkipUnderRace(t)
	opt := options(t, "leaky")
	opt.Rand = bytes.NewReader(bytes.Repeat([]byte{0x42}, 64))
	const canary = "conform-canary-424242424242424242424242"
	rep, _, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var pl24 report.RequirementResult
	for _, q := range rep.Requirements {
		if q.ID == "PL-24" {
			pl24 = q
		}
	}
	if pl24.Status != report.Fail {
		t.Fatalf("PL-24 is %s: %s", pl24.Status, pl24.Reason)
	}
	var places []string
	for _, f := range pl24.Failures {
		places = append(places, f.Message)
	}
	all := strings.Join(places, "\n")
	for _, want := range []string{"Invoke event", "Log callback", "stderr"} {
		if !strings.Contains(all, want) {
			t.Errorf("PL-24's failures do not name %q:\n%s", want, all)
		}
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"json":      func(b *bytes.Buffer) error { return report.WriteJSON(b, rep) },
		"markdown":  func(b *bytes.Buffer) error { return report.WriteMarkdown(b, rep) },
		"junit":     func(b *bytes.Buffer) error { return report.WriteJUnit(b, rep) },
		"html":      func(b *bytes.Buffer) error { return report.WriteHTML(b, rep) },
		"text":      func(b *bytes.Buffer) error { return report.WriteText(b, rep) },
		"unreached": func(b *bytes.Buffer) error { return WriteUnreached(b, rep) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), canary) {
			t.Errorf("the %s report carries the secret", name)
		}
	}
}
