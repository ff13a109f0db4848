package mutation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadClassifications(t *testing.T) {
	cases := []struct {
		name, json, wantErr string
	}{
		{"ok", `{"survivors":[{"key":"k","class":"equivalent","reason":"a capacity hint"},
			{"key":"k2","class":"not_observable","clause":"PA-18: persisted across sessions","reason":"in memory only"}]}`, ""},
		{"no reason", `{"survivors":[{"key":"k","class":"equivalent"}]}`, "no reason"},
		{"no clause", `{"survivors":[{"key":"k","class":"not_observable","reason":"r"}]}`, "must name the clause"},
		{"open reading without clause", `{"survivors":[{"key":"k","class":"open_reading","reason":"r"}]}`, "must name the clause"},
		{"needs check without requirement", `{"survivors":[{"key":"k","class":"needs_check","reason":"r"}]}`, "must name the clause"},
		{"unknown class", `{"survivors":[{"key":"k","class":"harmless","reason":"r"}]}`, "unknown class"},
		{"twice", `{"survivors":[{"key":"k","class":"equivalent","reason":"r"},{"key":"k","class":"equivalent","reason":"r"}]}`, "listed twice"},
		{"unknown field", `{"survivors":[{"key":"k","class":"equivalent","reason":"r","why":"x"}]}`, "unknown field"},
		{"no key", `{"survivors":[{"class":"equivalent","reason":"r"}]}`, "no key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "s.json")
			if err := os.WriteFile(p, []byte(c.json), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := LoadClassifications(p)
			if c.wantErr == "" {
				if err != nil || len(got) != 2 {
					t.Fatalf("got %v, %v", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("err = %v, want one saying %q", err, c.wantErr)
			}
		})
	}
}

func TestMissingClassificationListIsEmpty(t *testing.T) {
	got, err := LoadClassifications(filepath.Join(t.TempDir(), "none.json"))
	if err != nil || len(got) != 0 {
		t.Errorf("got %v, %v", got, err)
	}
}

// The committed list must load: a malformed entry would otherwise only
// show up when someone runs the whole campaign.
func TestCommittedListLoads(t *testing.T) {
	if _, err := LoadClassifications("survivors.json"); err != nil {
		t.Fatal(err)
	}
}
