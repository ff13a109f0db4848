package report

import "testing"

// FuzzHostileText runs any kernel string through every writer with the same
// checks as TestHostileText. The seeds are the hostile strings.
func FuzzHostileText(f *testing.F) {
	f.Setenv(secretTokenName, secretToken)
	f.Setenv(secretPassName, secretPass)
	for _, h := range hostile {
		f.Add(h.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := hostileReport(s)
		checkText(t, r)
		checkMarkdown(t, r, "")
		checkJUnit(t, r)
	})
}
