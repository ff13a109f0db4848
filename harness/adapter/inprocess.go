package adapter

import (
	"context"
	"io"
	"sync"
)

// ServeFunc serves the protocol on in/out until in reaches EOF, as a
// kernel's wire server does.
type ServeFunc func(ctx context.Context, in io.Reader, out io.Writer) error

// InProcess runs a Go kernel's wire server in this process over io.Pipe.
type InProcess struct {
	Name  string
	Serve ServeFunc
}

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
	var once sync.Once
	ep.close = func() error {
		once.Do(func() {
			inW.Close()
			cancel()
			outR.Close()
			inR.Close()
			<-ep.exited
		})
		return nil
	}
	return ep, nil
}
