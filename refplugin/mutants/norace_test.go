//go:build !race

package mutants

const raceEnabled = false
