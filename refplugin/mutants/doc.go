// Package mutants lists the plugin mutants: the reference plugin with one
// fault each (refplugin.Faults), and the PL requirement conform must fail
// it on. The kill matrix test (TestKillMatrix) runs conform plugin against
// every one, through the real go-plugin launch; a mutant conform cannot
// catch over the wire is listed with the reason it survives, and the test
// holds that it does.
package mutants
