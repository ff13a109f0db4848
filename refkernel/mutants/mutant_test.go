package mutants

import (
	"context"
	"io"
	"sort"
	"sync"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/server"
)

// Mutant is one deliberately broken kernel.
type Mutant struct {
	Name    string
	Targets []string // requirement IDs it breaks
	Breaks  string   // what is broken, for the kill matrix
	Apply   func(p loop.Parts) loop.Parts
	// Options tune the kernel, e.g. refkernel.WithDeclaration to leave a
	// reading out, so that a mutant shows the suite catches it whatever the
	// kernel declares.
	Options []refkernel.Option
	// Wire, when set, rewrites what the kernel sends (a kernel that
	// announces less than the reference does).
	Wire func(io.Writer) io.Writer
	// In, when set, rewrites what the kernel reads before it decodes it (a
	// kernel that reads some answers differently from the reference).
	In func(io.Reader) io.Reader
	// Slow judges the mutant with the @slow scenarios too: only they
	// can kill it.
	Slow bool
	// Kit, when set, wraps the reference kernel's wire adapter: a kernel
	// that serves a wire method (session/cancel) differently.
	Kit func(server.Kernel) kernelkit.Kernel
	// PerKernel runs Apply for every kernel launched (one per scenario),
	// so state a mutant shares between sessions spans one scenario's
	// tree, not every scenario running beside it.
	PerKernel bool
}

var (
	regMu    sync.Mutex
	registry []Mutant
)

// register adds mutants; each area's test file calls it from init.
func register(ms ...Mutant) {
	regMu.Lock()
	defer regMu.Unlock()
	registry = append(registry, ms...)
}

func all() []Mutant {
	regMu.Lock()
	defer regMu.Unlock()
	out := append([]Mutant(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// mutantLauncher serves the mutant in-process, over the wire.
func mutantLauncher(mu Mutant) adapter.Launcher {
	if mu.Kit == nil && !mu.PerKernel && mu.In == nil {
		return wiredLauncher(mu.Name, mu.Apply(loop.DefaultParts()), mu.Wire, mu.Options...)
	}
	shared := mu.Apply(loop.DefaultParts())
	return adapter.InProcess{Name: mu.Name, Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		if mu.Wire != nil {
			out = mu.Wire(out)
		}
		if mu.In != nil {
			in = mu.In(in)
		}
		parts := shared
		if mu.PerKernel {
			parts = mu.Apply(loop.DefaultParts())
		}
		ref := server.Kernel{K: refkernel.New(parts, mu.Options...)}
		var k kernelkit.Kernel = ref
		if mu.Kit != nil {
			k = mu.Kit(ref)
		}
		return kernelkit.Serve(ctx, k, in, out)
	}}
}

// launcher serves a kernel built from parts in-process, over the wire.
func launcher(name string, parts loop.Parts, opts ...refkernel.Option) adapter.Launcher {
	return wiredLauncher(name, parts, nil, opts...)
}

// wiredLauncher is launcher with what the kernel sends passed through wire.
func wiredLauncher(name string, parts loop.Parts, wire func(io.Writer) io.Writer, opts ...refkernel.Option) adapter.Launcher {
	return adapter.InProcess{Name: name, Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		if wire != nil {
			out = wire(out)
		}
		return server.Serve(ctx, refkernel.New(parts, opts...), in, out)
	}}
}
