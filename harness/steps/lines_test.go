package steps

import (
	"context"
	"errors"
	"regexp"
	"testing"
)

// A scenario given as lines binds the step library as godog does: setup
// steps set the session up, with their arguments converted and their table
// handed over, and a line no step matches ends the scenario with
// ErrUndefined, naming the line.
func TestRunLines(t *testing.T) {
	o := RunLines(context.Background(), &Env{}, "case.feature", "s", []string{"@TA-02", "@must"}, []Line{
		{Keyword: "Given", Text: "the session allows at most 3 turns"},
		{Keyword: "And", Text: `a data_source tool "read" from provider "fs" declared safe with no key fields`},
		{Keyword: "And", Text: "the model's price tiers are:", Table: [][]string{
			{"input tokens from", "input tokens until", "effective from", "effective until", "input", "output", "cache read", "cache write"},
			{"", "", "", "", "3", "15", "", ""},
		}},
	})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	s := o.State
	if got := *s.Cfg.Bounds.MaxTurns; got != 3 {
		t.Errorf("max_turns %d, want 3", got)
	}
	if len(s.Cfg.Tools) != 1 || s.Cfg.Tools[0].Name != "read" {
		t.Errorf("tools %+v, want read", s.Cfg.Tools)
	}
	if tiers := s.Cfg.Model.Pricing.Tiers; len(tiers) != 1 || tiers[0].OutputPerMtok != 15 {
		t.Errorf("price tiers %+v, want one at 3/15", tiers)
	}
	if !s.tagged["TA-02"] {
		t.Errorf("the scenario's tags were not read: %v", s.tagged)
	}

	o = RunLines(context.Background(), &Env{}, "case.feature", "s", nil, []Line{
		{Keyword: "Given", Text: "the session allows at most 3 turns"},
		{Keyword: "And", Text: "the moon is made of cheese"},
		{Keyword: "And", Text: "the session allows at most 4 turns"},
	})
	if !errors.Is(o.Err, ErrUndefined) || o.Err.Error() != "the harness has no step matching: the moon is made of cheese" {
		t.Errorf("an undefined line: %v", o.Err)
	}
	if got := *o.State.Cfg.Bounds.MaxTurns; got != 3 {
		t.Errorf("a line after the undefined one ran: max_turns %d", got)
	}
}

func TestLiteralPrefix(t *testing.T) {
	for pattern, want := range map[string]string{
		`^the model answers request (\d+) with these calls:$`: "the model answers request ",
		`^an? (data_source|resource) tool "([^"]+)"$`:         "a",
		`^every turn follows the documented step order$`:      "every turn follows the documented step order",
		`^(?i)case$`:                 "",
		`the session runs$`:          "",
		`^"([^"]+)" was dispatched$`: `"`,
	} {
		if got := literalPrefix(regexp.MustCompile(pattern)); got != want {
			t.Errorf("literalPrefix(%s) = %q, want %q", pattern, got, want)
		}
	}
}
