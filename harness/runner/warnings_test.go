package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
	"github.com/agentconform/conform/spec/wire"
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

// A kernel that labels requirements glue in its initialize answer gets the
// label on each known one (the verdict is unchanged), and a warning for a
// row the catalog does not know.
func TestGlueLabel(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subprocess kernels")
	}
	r, _ := runHostile(t, "glue", Options{Tags: "@TA-10"})
	if got := r.Kernel.Glue["TA-10"]; got != "the adapter's wrapper crashes, not the loop" {
		t.Errorf("kernel glue = %v, want TA-10's reason", r.Kernel.Glue)
	}
	if _, ok := r.Kernel.Glue["ZZ-99"]; ok {
		t.Error("an unknown requirement kept its glue label")
	}
	for _, q := range r.Requirements {
		switch {
		case q.ID == "TA-10" && (q.Glue == "" || q.Status != report.Error):
			t.Errorf("TA-10: glue %q status %s, want the label on an unchanged error verdict", q.Glue, q.Status)
		case q.ID != "TA-10" && q.Glue != "":
			t.Errorf("%s labelled glue: %q", q.ID, q.Glue)
		}
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, `"ZZ-99"`) }) {
		t.Errorf("warnings %q do not name the unknown ZZ-99", r.Warnings)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "bridge.hook_points") && strings.Contains(w, "ignored")
	}) {
		t.Errorf("warnings %q do not say the kernel's own bridge.hook_points is ignored", r.Warnings)
	}
}

func TestGlueOfDuplicates(t *testing.T) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	glue, warns := glueOf(cat, []wire.GlueNote{{Requirement: "TA-25", Reason: "first"}, {Requirement: "TA-25", Reason: "second"}})
	if glue["TA-25"] != "first" || len(warns) != 1 || !strings.Contains(warns[0], "twice") {
		t.Errorf("glue %v warnings %q", glue, warns)
	}
	if g, w := glueOf(cat, nil); g != nil || w != nil {
		t.Errorf("no glue gave %v %v", g, w)
	}
}
