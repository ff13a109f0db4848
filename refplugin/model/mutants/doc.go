// Package mutants is the kill matrix of the reference model provider:
// every mutant is refplugin/model with one fault, and `conform plugin`
// must fail (or err on) exactly the rows it lists, no other; every legal
// variant (another correct reading, or slower) must fail nothing. make
// plugin-mutants runs it and writes reports/model-kill-matrix.md.
package mutants
