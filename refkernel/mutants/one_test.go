package mutants

import (
	"os"
	"testing"
)

// TestOneMutant judges the mutant named by CONFORM_MUTANT alone and logs
// each target's verdict, partial passes included: how a new check is shown
// to kill a mutant that passed before it. Skipped without the variable.
func TestOneMutant(t *testing.T) {
	name := os.Getenv("CONFORM_MUTANT")
	if name == "" {
		t.Skip("set CONFORM_MUTANT to a mutant's name")
	}
	for _, mu := range all() {
		if mu.Name != name {
			continue
		}
		if os.Getenv("CONFORM_MUTANT_FAST") != "" {
			mu.Slow = false
		}
		row, r, err := judgeReport(mu)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range r.Requirements {
			for _, id := range mu.Targets {
				if q.ID == id {
					t.Logf("%s %s partial=%v %s %s", q.ID, q.Status, q.Partial, q.Unverified, q.Reason)
				}
			}
		}
		t.Logf("killed=%v by %v collateral %v", row.Killed, row.KilledBy, row.Collateral)
		return
	}
	t.Fatalf("no mutant %q", name)
}

// TestOneVariant judges the legal variant named by CONFORM_VARIANT alone
// and fails on every requirement it is blamed for. The kill matrix (make
// mutants) judges every variant in one pool, so this is for working on
// one; skipped without the variable.
func TestOneVariant(t *testing.T) {
	name := os.Getenv("CONFORM_VARIANT")
	if name == "" {
		t.Skip("set CONFORM_VARIANT to a legal variant's name")
	}
	judgeOne(t, name)
}
