package spec

import (
	"strings"
	"testing"
)

// The kernel catalog and the plugin catalog share one file and never a
// row: a kernel run cannot report a PL row, nor a plugin run a kernel row.
func TestProfilesSplitTheFile(t *testing.T) {
	all, err := LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	kernel, plugin := mustLoad(t), mustLoadPlugin(t)
	n := len(kernel.Requirements)
	for name, area := range pluginProfiles {
		v, err := LoadProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		n += len(v.Requirements)
		for _, r := range v.Requirements {
			if r.Profile != name || r.Area != area {
				t.Errorf("profile %s holds %s (profile %q, area %s)", name, r.ID, r.Profile, r.Area)
			}
			if _, ok := kernel.Get(r.ID); ok {
				t.Errorf("kernel Get(%s) found it", r.ID)
			}
		}
	}
	if n != len(all.Requirements) {
		t.Errorf("%d kernel and plugin-category rows, file has %d", n, len(all.Requirements))
	}
	if len(plugin.Requirements) != 31 || len(plugin.Areas) != 1 || plugin.Areas[0].Prefix != PluginArea {
		t.Errorf("plugin catalog: %d rows, areas %v", len(plugin.Requirements), plugin.Areas)
	}
	for _, r := range kernel.Requirements {
		if r.Profile == ProfilePlugin || r.Area == PluginArea {
			t.Errorf("kernel catalog holds %s", r.ID)
		}
	}
	for _, a := range kernel.Areas {
		if a.Prefix == PluginArea {
			t.Error("kernel catalog holds the PL area")
		}
	}
	for i, r := range plugin.Requirements {
		if r.Profile != ProfilePlugin || r.Area != PluginArea || r.Matrix {
			t.Errorf("%s: profile %q area %q matrix %v", r.ID, r.Profile, r.Area, r.Matrix)
		}
		if got, ok := plugin.Get(r.ID); !ok || got.ID != r.ID || plugin.IDs()[i] != r.ID {
			t.Errorf("Get(%s) = %v, %v", r.ID, got.ID, ok)
		}
		if _, ok := kernel.Get(r.ID); ok {
			t.Errorf("kernel Get(%s) found it", r.ID)
		}
	}
	if err := kernel.CheckTags([]string{"@PL-01"}); err == nil {
		t.Error("a kernel feature tagged @PL-01 passes CheckTags")
	}
	if caps := kernel.Capabilities(); strings.Contains(strings.Join(caps, ","), "tool.preview") {
		t.Errorf("kernel capabilities hold the plugin's: %v", caps)
	}
}

func TestParseKeepsProfilesInTheirAreas(t *testing.T) {
	for name, mutate := range map[string]func(r []map[string]any){
		"PL row in the agent-loop profile": func(r []map[string]any) {
			for _, row := range r {
				if row["area"] == PluginArea {
					row["profile"] = "agent-loop"
					return
				}
			}
		},
		"kernel row in the plugin profile": func(r []map[string]any) { r[0]["profile"] = ProfilePlugin },
	} {
		if _, err := Parse(mutated(t, mutate)); err == nil || !strings.Contains(err.Error(), "PL area") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func mustLoadPlugin(t *testing.T) *Catalog {
	t.Helper()
	c, err := LoadPlugin()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
