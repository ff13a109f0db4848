// Package mutants lists the context-provider mutants: the reference
// context provider (refcontext) with one fault each, and the CP
// requirement conform must fail it on — that one alone, no collateral.
// The legal variants (a compactor) must pass. TestKillMatrix runs conform
// against every one through the real go-plugin launch, each in a process
// of its own.
package mutants
