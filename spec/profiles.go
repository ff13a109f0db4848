package spec

import (
	"fmt"
	"sync"
)

// The plugin profile (PL rows) checks tool providers and hook subscribers
// over the go-plugin/gRPC protocol of the upstream ecosystem. It shares the
// embedded file, the fields and the verdict rules with the kernel profiles,
// but never a report: Load leaves it out and LoadPlugin has only it, so the
// kernel's compliance label and `conform run` never see a PL row, and a
// plugin's label never sees a kernel row.
const (
	ProfilePlugin = "plugin"
	PluginArea    = "PL"
)

var (
	allOnce sync.Once
	all     *Catalog
	allErr  error

	pluginOnce sync.Once
	plugin     *Catalog
)

// LoadAll returns every row of the embedded file, of every profile. It is
// for lookups by ID (a report's statements); runs use Load or LoadPlugin.
func LoadAll() (*Catalog, error) {
	allOnce.Do(func() {
		all, allErr = Parse(catalogJSON)
		if allErr != nil {
			allErr = fmt.Errorf("embedded requirements.json: %w", allErr)
		}
	})
	return all, allErr
}

// LoadPlugin returns the plugin profile: the PL area and its rows only.
func LoadPlugin() (*Catalog, error) {
	c, err := LoadAll()
	if err != nil {
		return nil, err
	}
	pluginOnce.Do(func() { plugin = c.profileView(true) })
	return plugin, nil
}

// profileView returns the rows (and areas) of the plugin profile when
// wantPlugin, of the kernel profiles otherwise, in file order.
func (c *Catalog) profileView(wantPlugin bool) *Catalog {
	v := &Catalog{Version: c.Version, byID: make(map[string]int)}
	for _, a := range c.Areas {
		if (a.Prefix == PluginArea) == wantPlugin {
			v.Areas = append(v.Areas, a)
		}
	}
	for _, r := range c.Requirements {
		if (r.Profile == ProfilePlugin) == wantPlugin {
			v.byID[r.ID] = len(v.Requirements)
			v.Requirements = append(v.Requirements, r)
		}
	}
	return v
}
