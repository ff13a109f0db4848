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

// Every other plugin category has a profile of its own, exactly one area
// wide, kept apart from the kernel profiles and from each other the same
// way (LoadProfile).
const (
	ProfileModelProvider   = "model-provider"
	ModelProviderArea      = "MP"
	ProfileContextProvider = "context-provider"
	ContextProviderArea    = "CP"
	ProfileMemoryProvider  = "memory-provider"
	MemoryProviderArea     = "MM"
)

// pluginProfiles maps each plugin-category profile to its one area.
var pluginProfiles = map[string]string{
	ProfilePlugin:          PluginArea,
	ProfileModelProvider:   ModelProviderArea,
	ProfileContextProvider: ContextProviderArea,
	ProfileMemoryProvider:  MemoryProviderArea,
}

// pluginArea reports whether prefix is the area of a plugin-category
// profile.
func pluginArea(prefix string) bool {
	for _, a := range pluginProfiles {
		if a == prefix {
			return true
		}
	}
	return false
}

var (
	allOnce sync.Once
	all     *Catalog
	allErr  error

	pluginOnce sync.Once
	plugin     *Catalog

	viewsMu sync.Mutex
	views   = map[string]*Catalog{}
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
	pluginOnce.Do(func() { plugin = c.profileView(ProfilePlugin) })
	return plugin, nil
}

// LoadProfile returns one plugin-category profile (ProfilePlugin,
// ProfileModelProvider, ...): its area and its rows only.
func LoadProfile(name string) (*Catalog, error) {
	if _, ok := pluginProfiles[name]; !ok {
		return nil, fmt.Errorf("no plugin profile %q", name)
	}
	if name == ProfilePlugin {
		return LoadPlugin()
	}
	c, err := LoadAll()
	if err != nil {
		return nil, err
	}
	viewsMu.Lock()
	defer viewsMu.Unlock()
	if v, ok := views[name]; ok {
		return v, nil
	}
	v := c.profileView(name)
	views[name] = v
	return v, nil
}

// profileView returns the rows (and area) of the named plugin-category
// profile, or of the kernel profiles when name is "", in file order.
func (c *Catalog) profileView(name string) *Catalog {
	v := &Catalog{Version: c.Version, byID: make(map[string]int)}
	for _, a := range c.Areas {
		if (name == "" && !pluginArea(a.Prefix)) || (name != "" && a.Prefix == pluginProfiles[name]) {
			v.Areas = append(v.Areas, a)
		}
	}
	for _, r := range c.Requirements {
		_, isPlugin := pluginProfiles[r.Profile]
		if (name == "" && !isPlugin) || (name != "" && r.Profile == name) {
			v.byID[r.ID] = len(v.Requirements)
			v.Requirements = append(v.Requirements, r)
		}
	}
	return v
}
