package main

import (
	"os"
	"strconv"
)

// columnsEnv is $COLUMNS when it is a width, else 80.
func columnsEnv() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}

// colorWanted: colour on a terminal unless NO_COLOR is set to anything
// (no-color.org) or the terminal says it is dumb.
func colorWanted(lookup func(string) (string, bool)) bool {
	if v, ok := lookup("NO_COLOR"); ok && v != "" {
		return false
	}
	term, _ := lookup("TERM")
	return term != "dumb"
}
