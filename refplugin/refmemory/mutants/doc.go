// Package mutants lists the memory-provider mutants: the reference memory
// provider (refmemory) with one fault each, and the MM requirement
// conform must fail it on — that one alone, no collateral. The legal
// variants (a ratifying provider) must pass.
package mutants
