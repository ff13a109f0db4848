package runner

import (
	"strings"
	"testing"

	"github.com/agentconform/conform/spec"
)

// A misspelt capability is a warning that names the intended one.
func TestCapabilityWarnings(t *testing.T) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	got := capabilityWarnings(cat, []string{"bound.max_cost", "bound.max_wall_clock_s"})
	if len(got) != 1 || !strings.Contains(got[0], `"bound.max_cost"`) || !strings.Contains(got[0], `"bound.max_cost_usd"`) {
		t.Errorf("warnings = %q, want one naming bound.max_cost and suggesting bound.max_cost_usd", got)
	}
}
