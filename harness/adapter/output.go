package adapter

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// afterExitBudget bounds what is read from the kernel's stdout once the
// kernel has exited. Everything the kernel wrote is in the pipe by then, and
// a pipe holds at most fs.pipe-max-size bytes (1 MiB by default) without
// privileges; more than that can only come from a process it left behind.
const afterExitBudget = 1 << 20

// outReader is the kernel's stdout as the harness reads it. Until the kernel
// exits it is the pipe. Once the kernel has exited, its own output is all in
// the pipe's buffer; the reader hands that over and then ends with EOF even
// when a process the kernel started still holds the pipe's write end. Without
// this, such a process keeps the connection open and the harness waits the
// full scenario timeout to report a "hang" for a kernel that has crashed.
type outReader struct {
	f      *os.File
	ep     *Endpoint
	after  bool // the kernel has exited and the read deadline is cleared
	budget int
}

func newOutReader(f *os.File, ep *Endpoint) *outReader {
	return &outReader{f: f, ep: ep, budget: afterExitBudget}
}

// kernelExited wakes a Read blocked on the pipe. It runs before ep.exited is
// closed, so a reader that sees ep.exited closed knows the deadline is set
// and clearing it cannot be undone by a late wake-up.
func (r *outReader) kernelExited() { _ = r.f.SetReadDeadline(time.Now()) }

func (r *outReader) Read(p []byte) (int, error) {
	if !r.after {
		select {
		case <-r.ep.exited:
		default:
			n, err := r.f.Read(p)
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				return n, err
			}
			<-r.ep.exited
			if n > 0 {
				r.after = true
				_ = r.f.SetReadDeadline(time.Time{})
				return n, nil
			}
		}
		r.after = true
		_ = r.f.SetReadDeadline(time.Time{})
	}
	return r.drain(p)
}

// drain reads what is left in the pipe without waiting: the kernel can no
// longer add to it, so an empty pipe whose write end is still open means a
// process the kernel started holds it.
func (r *outReader) drain(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if r.budget <= 0 {
		r.ep.setHeld()
		return 0, io.EOF
	}
	p = p[:min(len(p), r.budget)]
	rc, err := r.f.SyscallConn()
	if err != nil {
		return 0, err
	}
	for {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), p)
			return true
		}); err != nil {
			return 0, err
		}
		switch {
		case rerr == syscall.EINTR:
			continue
		case rerr == syscall.EAGAIN:
			r.ep.setHeld()
			return 0, io.EOF
		case rerr != nil:
			return 0, rerr
		case n == 0:
			return 0, io.EOF
		}
		r.budget -= n
		return n, nil
	}
}

// exitStatus says how the kernel ended: "status 3" or "signal: killed".
func exitStatus(ps *os.ProcessState) string {
	if ps == nil {
		return "status unknown"
	}
	if c := ps.ExitCode(); c >= 0 {
		return fmt.Sprintf("status %d", c)
	}
	return ps.String()
}
