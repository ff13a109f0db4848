package spec

import (
	"strings"
	"testing"
)

func TestLoadClauses(t *testing.T) {
	m, err := LoadClauses()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Clauses) == 0 || len(m.Areas) == 0 {
		t.Fatalf("empty clause map: %+v", m)
	}
}

// Every defect of a clause map is reported, each naming its clause.
func TestParseClausesDefects(t *testing.T) {
	bad := `{"version":1,"areas":["TA"],"clauses":[
	 {"id":"TA-02","requirement":"TA-02","kind":"value","says":"x","sides":[{"when":"a","checks":[],"scenarios":[]}]},
	 {"id":"TA-03.a","requirement":"TA-02","kind":"value","says":"x","sides":[{"when":"a","checks":[],"scenarios":[]}]},
	 {"id":"TA-02.b","requirement":"TA-02","kind":"condition","says":"x","sides":[{"when":"a","checks":[],"scenarios":[]}]},
	 {"id":"TA-02.b","requirement":"TA-02","kind":"sometimes","says":"","sides":[]},
	 {"id":"TA-99.c","requirement":"TA-99","kind":"value","says":"x","sides":[{"when":"a","checks":[],"scenarios":[]}],"tree":{"when":"t","checks":[],"scenarios":[]}}
	]}`
	_, err := ParseClauses([]byte(bad))
	if err == nil {
		t.Fatal("a defective clause map was accepted")
	}
	for _, want := range []string{`id "TA-02" is not`, "its id names TA-03", "a condition has two sides", "id used twice", "unknown kind", "says nothing", "unknown requirement TA-99", "a tree side belongs"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
	if _, err := ParseClauses([]byte(`{"version":1,"areas":[],"clauses":[],"extra":1}`)); err == nil {
		t.Error("an unknown field was accepted")
	}
}
