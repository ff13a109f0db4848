package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLoadEmbedded(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Load(); again != c {
		t.Error("Load returned a different pointer on the second call")
	}
	if got := len(c.Requirements); got != 106 {
		t.Errorf("requirements = %d, want 106", got)
	}
	if got := len(c.Areas); got != 6 {
		t.Errorf("areas = %d, want 6", got)
	}
	matrix := 0
	for _, r := range c.Requirements {
		if r.Matrix {
			matrix++
		}
	}
	if matrix != 44 {
		t.Errorf("matrix rows = %d, want 44", matrix)
	}
}

func TestSpotChecks(t *testing.T) {
	c := mustLoad(t)
	tests := []struct {
		id, level, class, capability string
		matrix                       bool
		row                          int
	}{
		{id: "TA-01", level: "MUST", class: "must", matrix: true, row: 1},
		{id: "ER-04", level: "SHOULD", class: "should", matrix: true, row: 44, capability: "errors.tool_crash_result"},
		{id: "HD-08", level: "MAY", class: "may", matrix: true, row: 24, capability: "hooks.third_party_veto"},
		{id: "PA-15", level: "MUST NOT", class: "must"},
		{id: "DF-01", level: "seed", class: "seed", capability: "profile.deterministic_first"},
	}
	for _, tt := range tests {
		r, ok := c.Get(tt.id)
		if !ok {
			t.Errorf("%s missing", tt.id)
			continue
		}
		if r.Level != tt.level || r.Class != tt.class || r.Matrix != tt.matrix || r.MatrixRow != tt.row || r.Capability != tt.capability {
			t.Errorf("%s = {level %q class %q matrix %v row %d capability %q}, want {%q %q %v %d %q}",
				tt.id, r.Level, r.Class, r.Matrix, r.MatrixRow, r.Capability,
				tt.level, tt.class, tt.matrix, tt.row, tt.capability)
		}
	}
	if r, _ := c.Get("DF-01"); r.Profile != "deterministic-first" {
		t.Errorf("DF-01 profile = %q", r.Profile)
	}
	if _, ok := c.Get("TA-99"); ok {
		t.Error("Get(TA-99) found an entry")
	}
}

func TestIDsAndAreas(t *testing.T) {
	c := mustLoad(t)
	ids := c.IDs()
	if len(ids) != 106 || ids[0] != "TA-01" || ids[len(ids)-1] != "DF-10" {
		t.Errorf("IDs() = %d ids from %q to %q", len(ids), ids[0], ids[len(ids)-1])
	}
	if got := c.AreaOf("HD-03").Name; got != "Hook dispatch" {
		t.Errorf("AreaOf(HD-03) = %q", got)
	}
	if got := c.AreaOf("XX-01"); got != (Area{}) {
		t.Errorf("AreaOf(XX-01) = %+v, want zero", got)
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(reqs []map[string]any)
		want   []string // substrings the error must contain
	}{
		{"duplicate ID", func(r []map[string]any) { r[1]["id"] = "TA-01" }, []string{"TA-01", `"id"`, "duplicate"}},
		{"bad ID shape", func(r []map[string]any) { r[0]["id"] = "TA-1" }, []string{"TA-1", `"id"`}},
		{"area mismatch", func(r []map[string]any) { r[2]["area"] = "HD" }, []string{"TA-03", `"area"`}},
		{"unknown level", func(r []map[string]any) { r[4]["level"] = "MIGHT" }, []string{"TA-05", `"level"`, "MIGHT"}},
		{"class mismatch", func(r []map[string]any) { r[0]["class"] = "should" }, []string{"TA-01", `"class"`}},
		{"empty statement", func(r []map[string]any) { r[5]["statement"] = " " }, []string{"TA-06", `"statement"`}},
		{"capability on MUST", func(r []map[string]any) { r[0]["capability"] = "x.y" }, []string{"TA-01", `"capability"`}},
		{"unknown profile", func(r []map[string]any) { r[0]["profile"] = "other" }, []string{"TA-01", `"profile"`}},
		{"unknown field", func(r []map[string]any) { r[3]["colour"] = "red" }, []string{"TA-04", "colour"}},
		{"wrong field type", func(r []map[string]any) { r[3]["matrix"] = "yes" }, []string{"TA-04", "matrix"}},
		{"matrix row out of range", func(r []map[string]any) { r[1]["matrix_row"] = 45 }, []string{"TA-02", `"matrix_row"`}},
		{"duplicate matrix row", func(r []map[string]any) { r[1]["matrix_row"] = 1 }, []string{"TA-02", "TA-01", "row 1"}},
		{"missing matrix row", func(r []map[string]any) {
			r[1]["matrix"] = false
			delete(r[1], "matrix_row")
		}, []string{"matrix row 2 has no requirement"}},
		{"row on non-matrix entry", func(r []map[string]any) { r[16]["matrix_row"] = 7 }, []string{"TA-17", `"matrix_row"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(mutated(t, tt.mutate))
			if err == nil {
				t.Fatal("Parse accepted the defect")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestParseRejectsUnknownTopLevelField(t *testing.T) {
	if _, err := Parse([]byte(`{"version":1,"areas":[],"requirements":[],"extra":1}`)); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("err = %v, want an unknown-field error naming \"extra\"", err)
	}
}

func TestParseAcceptsUnmodifiedCopy(t *testing.T) {
	if _, err := Parse(mutated(t, func([]map[string]any) {})); err != nil {
		t.Fatal(err)
	}
}

func TestCheckTags(t *testing.T) {
	c := mustLoad(t)
	if err := c.CheckTags([]string{"@TA-01", "HD-08", "@must", "@should", "@may", "@wip", "@slow", "@DF-10"}); err != nil {
		t.Errorf("known tags rejected: %v", err)
	}
	err := c.CheckTags([]string{"@TA-01", "@TA-99", "@wip"})
	if err == nil || !strings.Contains(err.Error(), "@TA-99") {
		t.Errorf("CheckTags(@TA-99) = %v, want an error naming @TA-99", err)
	}
	if err := c.CheckTags([]string{"SA-17"}); err == nil {
		t.Error("CheckTags accepted SA-17 without @")
	}
}

func mustLoad(t *testing.T) *Catalog {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mutated returns the embedded catalog with one defect applied by mutate.
// Going through generic maps lets a test plant fields the Go types cannot hold.
func mutated(t *testing.T, mutate func(reqs []map[string]any)) []byte {
	t.Helper()
	var doc struct {
		Version      int              `json:"version"`
		Areas        []Area           `json:"areas"`
		Requirements []map[string]any `json:"requirements"`
	}
	if err := json.Unmarshal(catalogJSON, &doc); err != nil {
		t.Fatal(err)
	}
	mutate(doc.Requirements)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
