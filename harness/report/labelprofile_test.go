package report

import "testing"

// A label speaks for the one plugin-category profile all its counted rows
// share, and for the agent loop otherwise.
func TestLabelProfile(t *testing.T) {
	row := func(profile string) RequirementResult { return RequirementResult{Profile: profile, Class: classMust} }
	for _, c := range []struct {
		rows []RequirementResult
		want string
	}{
		{[]RequirementResult{row("plugin"), row("plugin")}, "plugin"},
		{[]RequirementResult{row("model-provider"), row("model-provider")}, "model-provider"},
		{[]RequirementResult{row("model-provider"), row("plugin")}, profileAgentLoop},
		{[]RequirementResult{row(profileAgentLoop), row("plugin")}, profileAgentLoop},
		{nil, profileAgentLoop},
	} {
		if got := labelProfile(c.rows); got != c.want {
			t.Errorf("labelProfile(%v) = %q, want %q", c.rows, got, c.want)
		}
	}
}
