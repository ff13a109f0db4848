// Package category is the registry of plugin categories `conform plugin`
// checks: tool providers (with hook subscribers), model providers, and
// whichever others register. A category is a name (the --category value
// and the go-plugin plugin-map key), the spec profile its report speaks
// for, the gRPC service a plugin of that category serves, and the Run
// function of its engine. Detect tells a plugin's category from what it
// serves: the services gRPC reflection lists (go-plugin registers
// reflection on every plugin's server), or, for a plugin without
// reflection, which service answers Describe, the one RPC every category's
// protocol has with an empty request.
//
// An engine registers itself from its package's init; cmd/conform imports
// each engine package for that effect, one file per category.
package category
