package main

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	os.Exit(execute(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// execute runs the command line args and returns the exit code; tests call
// it in-process.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.code != exitFailed {
			fmt.Fprintln(stderr, "conform:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "conform:", err)
	return exitUsage
}

// usage is a usage error (exit 2).
func usage(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}
