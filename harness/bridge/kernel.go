package bridge

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
)

// Kernel is the agent kernel for one profile.
type Kernel struct {
	Profile *Profile
	// Conform is the conform binary ({conform}: the hook relay, the test
	// agents).
	Conform string
	// BinDir is where the profile's package binary is found ({bin}).
	BinDir string
	// Isolation is the proof Isolation returned, or "" when the kernel
	// runs without a namespace (--no-isolation).
	Isolation string
	// Version is conform's.
	Version string
	// Log receives observations and the agents' stderr tails (the agent
	// kernel's stderr); nil drops them.
	Log io.Writer

	mu sync.Mutex
}

var _ kernelkit.Kernel = (*Kernel)(nil)

// Info declares the profile's capabilities and readings, plus what the
// bridge itself is (bridge.* readings are recorded in the report).
func (k *Kernel) Info() kernelkit.Info {
	r := map[string]string{}
	for key, v := range k.Profile.Readings {
		r[key] = v
	}
	r["bridge.agent"] = k.Profile.Name
	r["bridge.dialect"] = k.Profile.Dialect
	if k.Profile.Hooks != "" {
		r["bridge.hooks"] = "the agent's one hook command per event is fanned out by the bridge to the point's subscribers in declaration order (kernelkit Session.Dispatch: modes, timeouts, hook_error events are the bridge's glue); only pre-tool-call, post-tool-call, session-start and session-end are relayed"
	}
	if k.Isolation != "" {
		r["bridge.isolation"] = k.Isolation
	} else {
		r["bridge.isolation"] = "none (--no-isolation): the agent could reach the network"
	}
	caps := append([]string(nil), k.Profile.Capabilities...)
	sort.Strings(caps)
	return kernelkit.Info{Name: "conform-bridge/" + k.Profile.Name, Version: k.Version, Capabilities: caps, Readings: r, Glue: k.Profile.Glue}
}

// Run bridges one session: the agent runs once, start to end.
func (k *Kernel) Run(ctx context.Context, h *kernelkit.Host, p wire.RunParams) (wire.RunSessionResult, error) {
	r, err := newRun(k, h, p)
	if err != nil {
		return wire.RunSessionResult{}, kernelkit.Errorf(wire.CodeInternal, "bridge: %v", err)
	}
	defer r.close()
	return r.run(ctx)
}

func (k *Kernel) logf(format string, args ...any) {
	if k.Log == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	fmt.Fprintf(k.Log, "conform agent-kernel: "+format+"\n", args...)
}

func osExecutable() string {
	p, err := os.Executable()
	if err != nil {
		return "conform"
	}
	return p
}
