package spec

import (
	"slices"
	"sort"

	"github.com/agentconform/conform/internal/editdist"
)

// protocolCapabilities are capability names PROTOCOL.md §15 defines that no
// requirement is gated on (any more): a kernel may declare them, and they
// are not misspellings. TA-11 became a plain MUST; kernels written before
// still declare done.terminal_tool.
var protocolCapabilities = []string{"done.terminal_tool"}

// Capabilities returns the optional capability names conform knows: every
// requirement's capability and the other names PROTOCOL.md §15 defines,
// sorted, each once.
func (c *Catalog) Capabilities() []string {
	out := slices.Clone(protocolCapabilities)
	for _, r := range c.Requirements {
		if r.Capability != "" && !slices.Contains(out, r.Capability) {
			out = append(out, r.Capability)
		}
	}
	sort.Strings(out)
	return out
}

// UnknownCapabilities returns the declared capability names the catalog does
// not know, in declared order, each once; nil when all are known. A kernel
// that misspells a capability ("bound.max_cost") declares nothing the
// checks look for, so the rows it meant are skipped: the report warns.
func (c *Catalog) UnknownCapabilities(declared []string) []string {
	known := c.Capabilities()
	var out []string
	for _, d := range declared {
		if _, ok := slices.BinarySearch(known, d); !ok && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// NearestCapability returns the known capability an unknown name most
// likely meant (a few edits away, and nearer than any other), or "" when
// none is close.
func (c *Catalog) NearestCapability(name string) string {
	best, bestD, tie := "", -1, false
	for _, k := range c.Capabilities() {
		d := editdist.Bytes(name, k)
		switch {
		case bestD < 0 || d < bestD:
			best, bestD, tie = k, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie || bestD < 0 || bestD > max(2, len(best)/3) {
		return ""
	}
	return best
}
