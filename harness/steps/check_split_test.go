package steps

import (
	"errors"
	"testing"
)

// A split outcome files one entry per group of the scenario's tags, and a
// group the scenario is not tagged with leaves no entry behind.
func TestRecordSplitOutcome(t *testing.T) {
	s := &Scenario{tagged: map[string]bool{"HD-01": true, "HD-02": true}}
	s.record([]string{"HD-01", "HD-02", "HD-06"}, blameOnly([]string{"HD-01"}, errors.New("not applied"), nil))
	if len(s.Checks) != 2 {
		t.Fatalf("want 2 outcomes, got %+v", s.Checks)
	}
	if c := s.Checks[0]; c.Status != CheckFail || len(c.Proves) != 1 || c.Proves[0] != "HD-01" {
		t.Errorf("blamed group: %+v", c)
	}
	if c := s.Checks[1]; c.Status != CheckPass || len(c.Proves) != 1 || c.Proves[0] != "HD-02" {
		t.Errorf("the other group: %+v", c)
	}

	only := &Scenario{tagged: map[string]bool{"HD-06": true}}
	only.record([]string{"HD-01", "HD-06"}, blameOnly([]string{"HD-01"}, errors.New("not applied"), notReached("no chain")))
	if len(only.Checks) != 1 || only.Checks[0].Status != CheckNotReached || only.Checks[0].Proves[0] != "HD-06" {
		t.Errorf("untagged blamed group should leave only the other: %+v", only.Checks)
	}

	none := &Scenario{tagged: map[string]bool{}}
	none.record([]string{"HD-01", "HD-06"}, blameOnly([]string{"HD-01"}, errors.New("x"), nil))
	if len(none.Checks) != 1 {
		t.Errorf("a check proving nothing here keeps one entry for the attribution lint: %+v", none.Checks)
	}
}

// A check whose premise the kernel does not offer leaves no entry, so the
// requirement is judged by the scenario's other checks alone; not reached
// is still recorded.
func TestRecordNotApplicable(t *testing.T) {
	s := &Scenario{tagged: map[string]bool{"ER-01": true}}
	s.record([]string{"ER-01"}, notApplicable("no delay_ms announced"))
	if len(s.Checks) != 0 {
		t.Errorf("a check that does not apply was recorded: %+v", s.Checks)
	}
	s.record([]string{"ER-01"}, notReached("no retry"))
	if len(s.Checks) != 1 || s.Checks[0].Status != CheckNotReached {
		t.Errorf("not reached must stay recorded: %+v", s.Checks)
	}
}
