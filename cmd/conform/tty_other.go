//go:build !linux

package main

import "io"

// isTerminal is false off Linux: progress is then a line per scenario,
// which is always correct, only less compact.
func isTerminal(io.Writer) bool { return false }

func terminalWidth(io.Writer) int { return columnsEnv() }
