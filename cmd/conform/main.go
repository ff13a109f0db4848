package main

import (
	"errors"
	"fmt"
	"os"
)

// Exit codes.
const (
	exitOK         = 0
	exitFailed     = 1 // a requirement at the required level failed or erred
	exitUsage      = 2 // usage or harness error
	exitIncomplete = 3 // the run stopped before every scenario had a verdict
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	root := newRootCmd()
	err := root.Execute()
	if err == nil {
		os.Exit(exitOK)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.code != exitFailed {
			fmt.Fprintln(os.Stderr, "conform:", ee.err)
		}
		os.Exit(ee.code)
	}
	fmt.Fprintln(os.Stderr, "conform:", err)
	os.Exit(exitUsage)
}
