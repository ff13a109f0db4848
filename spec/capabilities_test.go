package spec_test

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/spec"
)

func load(t *testing.T) *spec.Catalog {
	t.Helper()
	c, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// protocolTable reads the capability names of PROTOCOL.md §15's table.
func protocolTable(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "## 15. Capabilities and readings")
	sec, _, ok2 := strings.Cut(sec, "**Readings.**")
	if !ok || !ok2 {
		t.Fatal("PROTOCOL.md has no §15 capability table")
	}
	var names []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_.]+)` \\|").FindAllStringSubmatch(sec, -1) {
		names = append(names, m[1])
	}
	sort.Strings(names)
	return names
}

func TestCapabilitiesAreTheProtocols(t *testing.T) {
	c := load(t)
	caps := c.Capabilities()
	if want := protocolTable(t); !slices.Equal(caps, want) {
		t.Errorf("Capabilities() = %v\nPROTOCOL.md §15 names %v", caps, want)
	}
	for _, r := range c.Requirements {
		if r.Capability != "" && !slices.Contains(caps, r.Capability) {
			t.Errorf("%s's capability %s is not known", r.ID, r.Capability)
		}
	}
	// The reference kernel declares only names the catalog knows.
	if u := c.UnknownCapabilities(refkernel.Capabilities); u != nil {
		t.Errorf("the reference kernel declares unknown capabilities %v", u)
	}
}

func TestUnknownCapabilities(t *testing.T) {
	c := load(t)
	got := c.UnknownCapabilities([]string{"bound.max_cost", "bound.max_cost_usd", "vendor.turbo", "bound.max_cost", "Bound.Soft_Limits", "done.terminal_tool"})
	want := []string{"bound.max_cost", "vendor.turbo", "Bound.Soft_Limits"}
	if !slices.Equal(got, want) {
		t.Errorf("UnknownCapabilities = %q, want %q", got, want)
	}
	if u := c.UnknownCapabilities(nil); u != nil {
		t.Errorf("no declaration: %v", u)
	}
}

func TestNearestCapability(t *testing.T) {
	c := load(t)
	for _, tt := range []struct{ name, want string }{
		{"bound.max_cost", "bound.max_cost_usd"},
		{"bound.soft_limit", "bound.soft_limits"},
		{"Bound.Soft_Limits", "bound.soft_limits"},
		{"profile.deterministic-first", "profile.deterministic_first"},
		{"hooks.concurent_observe", "hooks.concurrent_observe"},
		{"vendor.turbo", ""},
		{"x", ""},
	} {
		if got := c.NearestCapability(tt.name); got != tt.want {
			t.Errorf("NearestCapability(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
