//go:build race

package testrace

// Enabled reports whether the binary was built with -race.
const Enabled = true
