package adapter

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// ServeFunc serves the protocol on in/out until in reaches EOF, as a
// kernel's wire server does.
type ServeFunc func(ctx context.Context, in io.Reader, out io.Writer) error

// InProcess runs a Go kernel's wire server in this process over io.Pipe.
type InProcess struct {
	Name  string
	Serve ServeFunc
	// StopGrace is how long Close waits for Serve to return once the
	// kernel's input is closed and its context cancelled (0: 5 s).
	StopGrace time.Duration
}

// defaultStopGrace bounds the wait for an in-process kernel to stop. A
// process can be killed; a goroutine cannot, so a kernel deadlocked on its
// own lock, or looping without looking at its context, is left behind
// rather than holding the run forever: a wrong kernel of the mutation
// campaign held a run for 27 minutes that way, every scenario's session
// long timed out. A correct kernel returns in milliseconds.
const defaultStopGrace = 5 * time.Second

// Describe implements Launcher.
func (p InProcess) Describe() string { return "in-process: " + p.Name }

// Launch implements Launcher.
func (p InProcess) Launch(ctx context.Context) (*Endpoint, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	ep := &Endpoint{Out: outR, In: input{inW}, exited: make(chan struct{})}
	go func() {
		err := p.Serve(ctx, inR, outW)
		outW.CloseWithError(io.EOF)
		// A kernel that stopped serving reads no more: a write to it
		// fails, as one to an exited process does, instead of blocking.
		inR.Close()
		ep.setExit(err)
	}()
	grace := p.StopGrace
	if grace <= 0 {
		grace = defaultStopGrace
	}
	var once sync.Once
	var closeErr error
	ep.close = func() error {
		once.Do(func() {
			inW.Close()
			cancel()
			outR.Close()
			inR.Close()
			t := time.NewTimer(grace)
			defer t.Stop()
			select {
			case <-ep.exited:
			case <-t.C:
				closeErr = fmt.Errorf("in-process kernel %s did not stop within %s of its input closing and its context ending; it is left running", p.Name, grace)
			}
		})
		return closeErr
	}
	return ep, nil
}
