package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/spec"
)

// checkBadge: both badges are well-formed and valid whatever the kernel
// said; no kernel text reaches them.
func checkBadge(t *testing.T, r *Report) {
	t.Helper()
	var svg, js bytes.Buffer
	if err := WriteBadge(&svg, r); err != nil {
		t.Fatal(err)
	}
	checkXML(t, "badge SVG", svg.Bytes())
	if err := WriteBadgeJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if err := ValidateJSON(spec.BadgeSchema, js.Bytes()); err != nil {
		t.Errorf("badge JSON: %v\n%s", err, js.Bytes())
	}
}

// badgeReport is a report over testCatalog whose requirements have the
// given statuses.
func badgeReport(statuses map[string]Status) *Report {
	var scs []ScenarioResult
	line := 1
	for id, st := range statuses {
		scs = append(scs, sc("f.feature", line, st, "why", id))
		line++
	}
	return Build(testCatalog(), Kernel{Name: "k"}, scs, started, time.Second)
}

func TestBadgeOf(t *testing.T) {
	allPass := map[string]Status{"TA-01": Pass, "TA-02": Pass, "TA-03": Pass, "TA-05": Pass, "HD-01": Pass, "HD-07": Pass}
	with := func(id string, st Status) map[string]Status {
		m := map[string]Status{}
		for k, v := range allPass {
			m[k] = v
		}
		m[id] = st
		if st == NotTested {
			delete(m, id) // no scenario covers it
		}
		return m
	}
	for _, c := range []struct {
		name           string
		r              *Report
		message, color string
	}{
		{"all", badgeReport(allPass), "ALL ✓ 6/6", "brightgreen"},
		{"a MAY fails", badgeReport(with("TA-05", Fail)), "SHOULD ✓ 4/4", "green"},
		{"a SHOULD fails", badgeReport(with("TA-03", Fail)), "MUST ✓ 3/3", "yellowgreen"},
		{"a MUST not tested", badgeReport(with("HD-01", NotTested)), "ALL ✓ 5/6", "brightgreen"},
		{"a MUST fails", badgeReport(with("TA-02", Fail)), "MUST ✗ 2/3", "red"},
		{"a MUST errs", badgeReport(with("TA-01", Error)), "MUST ✗ 2/3", "red"},
		{"nothing passed", badgeReport(map[string]Status{}), "MUST ✗ 0/3", "red"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := BadgeOf(c.r)
			if b.Label != "conform" || b.Message != c.message || b.Color != c.color {
				t.Errorf("badge %+v, want %q in %s (compliance %q)", b, c.message, c.color, c.r.Compliance.Label)
			}
			checkBadge(t, c.r)
		})
	}
	r := badgeReport(allPass)
	r.Interrupted = true
	if b := BadgeOf(r); b.Message != "interrupted, no claim" || b.Color != "lightgrey" {
		t.Errorf("interrupted run: %+v", b)
	}
	r = badgeReport(allPass)
	r.Selection = "@TA-01"
	if b := BadgeOf(r); b.Message != "selected scenarios only, no claim" || b.Color != "lightgrey" {
		t.Errorf("selected run: %+v", b)
	}
}

func TestWriteBadgeJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBadgeJSON(&buf, badgeReport(map[string]Status{"TA-01": Pass, "TA-02": Pass, "HD-01": Pass})); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// TA-03, TA-05 and HD-07 are not tested: the level stands on what was
	// tested, and the count says how much that is.
	want := map[string]any{"schemaVersion": 1.0, "label": "conform", "message": "ALL ✓ 3/6", "color": "brightgreen"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("keys %v, want exactly %v", got, want)
	}
	// The schema refuses what shields.io would not read.
	for _, bad := range []string{
		`{"schemaVersion":2,"label":"conform","message":"MUST ✓ 1/1","color":"red"}`,
		`{"schemaVersion":1,"label":"conform","message":"<b>x</b>","color":"red"}`,
		`{"schemaVersion":1,"label":"conform","message":"MUST ✓ 1/1","color":"#fff"}`,
		`{"schemaVersion":1,"label":"conform","message":"MUST ✓ 1/1"}`,
	} {
		if ValidateJSON(spec.BadgeSchema, []byte(bad)) == nil {
			t.Errorf("badge schema accepts %s", bad)
		}
	}
}

func TestWriteBadge(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBadge(&buf, badgeReport(map[string]Status{"TA-01": Pass, "TA-02": Fail})); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	checkXML(t, "badge SVG", buf.Bytes())
	for _, want := range []string{`aria-label="conform: MUST ✗ 1/3"`, `fill="#e05d44"`, `>MUST ✗ 1/3</text>`, `>conform</text>`} {
		if !strings.Contains(svg, want) {
			t.Errorf("badge lacks %q:\n%s", want, svg)
		}
	}
}
