package adapter

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// ErrInputClosed is every failed write to a kernel whose input is gone: it
// exited, or closed its stdin. The operating system names that cause in
// several ways, and which one a write meets is a matter of timing (a broken
// pipe while the process is dying, "file already closed" once Wait has
// reaped it, a closed io.Pipe for an in-process kernel); a report must say
// one thing for one cause, so all of them become this error, and the
// harness then learns what the kernel did from its output and its exit.
var ErrInputClosed = errors.New("the kernel's input (its stdin) is closed")

// input is a kernel's stdin as the harness writes it.
type input struct{ w io.WriteCloser }

func (in input) Write(p []byte) (int, error) {
	n, err := in.w.Write(p)
	if err != nil && inputGone(err) {
		err = ErrInputClosed
	}
	return n, err
}

// Close closes the kernel's input (the end of input a kernel takes as the
// harness having gone).
func (in input) Close() error { return in.w.Close() }

func inputGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)
}
