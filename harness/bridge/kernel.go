package bridge

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

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
	// ScratchRoot holds every session's scratch folder ("": the system's
	// temporary folder). A session removes its own when it ends; conform
	// agent removes the root after the run, so that a kernel killed
	// mid-session (a harness timeout) leaves nothing behind either.
	ScratchRoot string
	// TimeoutMultiplier scales the profile's timeout_s, as conform run's
	// --timeout-multiplier scales the harness's own durations (values
	// below 1 count as 1): `conform agent` passes its value on the agent
	// kernel's command line, so a slow machine does not turn a slow agent
	// into a hang.
	TimeoutMultiplier float64
	// Observations receives what the bridge saw of the agent, per session
	// (observations.go); nil drops them.
	Observations *ObservationWriter
	// Log receives observations and the agents' stderr tails (the agent
	// kernel's stderr); nil drops them.
	Log io.Writer

	mu sync.Mutex

	runsMu  sync.Mutex
	runs    map[*run]bool // sessions running now, for the lookups they made
	lookups string        // the stub resolver's address, "" when none
	// conns says whether connections beyond loopback are watched, or why
	// not ("" when the lookups are not watched either).
	conns string
	watch *ConnWatch // nil when connections are not watched
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
	// The points whose dispatches the harness can see at all: checks of a
	// dispatch elsewhere are not reached rather than judged on silence.
	r["bridge.hook_points"] = "none"
	if pts := relayedPoints(k.Profile.Hooks); len(pts) > 0 {
		r["bridge.hook_points"] = strings.Join(pts, ", ")
	}
	if k.lookups != "" {
		r["bridge.lookups"] = "every name the agent looks up goes to a stub resolver on " + k.lookups + " inside the namespace, which answers NXDOMAIN and reports the name as an observation (subject bridge)"
	}
	if k.conns != "" {
		r["bridge.connections"] = k.conns
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
	k.runsMu.Lock()
	if k.runs == nil {
		k.runs = map[*run]bool{}
	}
	k.runs[r] = true
	k.runsMu.Unlock()
	defer func() {
		k.runsMu.Lock()
		delete(k.runs, r)
		k.runsMu.Unlock()
	}()
	return r.run(ctx)
}

// WatchLookups starts the stub resolver on addr (an address of loopback,
// port 53) and points the namespace's /etc/resolv.conf at it (UseResolver:
// only in a mount namespace of the kernel's own); every name looked up
// while a session runs becomes an observation of that session. dir holds
// the scratch resolv.conf. Call before serving.
func (k *Kernel) WatchLookups(dir, ip string) (stop func(), err error) {
	d := &DNSStub{Addr: net.JoinHostPort(ip, "53"), OnQuery: k.lookedUp}
	if err := d.Start(); err != nil {
		return nil, fmt.Errorf("stub resolver: %w", err)
	}
	if err := UseResolver(dir, ip); err != nil {
		d.Close()
		return nil, err
	}
	k.lookups = d.Addr
	return d.Close, nil
}

// WatchConnections makes every address local to the namespace (AnyIP) and
// reports each connection the agent attempts beyond loopback as an
// observation of the sessions running then. It does not fail the kernel:
// where it cannot watch, the reading bridge.connections says why.
func (k *Kernel) WatchConnections() (stop func()) {
	if err := AnyIP(); err != nil {
		k.conns = "not watched (" + err.Error() + "): a connection to a literal address beyond loopback fails for want of a route and is not seen"
		return func() {}
	}
	w := &ConnWatch{OnAttempt: k.attempted}
	if err := w.Start(); err != nil {
		k.conns = "not watched (" + err.Error() + "); every address is local to the namespace, so an attempt is refused inside it"
		return func() {}
	}
	k.watch = w
	k.conns = "every address is local to the namespace (AnyIP routes on lo), so a connection beyond loopback is refused inside it, and each TCP connection or UDP datagram the agent attempts is reported with its address as an observation (subject bridge); nothing leaves the namespace"
	return func() {
		k.runsMu.Lock()
		k.watch = nil
		k.runsMu.Unlock()
		w.Close()
	}
}

// syncConnections waits until the connection attempts the agent made are
// reported, before its session's observations are flushed.
func (k *Kernel) syncConnections() {
	k.runsMu.Lock()
	w := k.watch
	k.runsMu.Unlock()
	if w != nil {
		w.Sync(2 * time.Second)
	}
}

// attempted reports one connection attempt to the sessions running now.
func (k *Kernel) attempted(proto, addr string) {
	k.runsMu.Lock()
	defer k.runsMu.Unlock()
	what := fmt.Sprintf("the agent attempted a TCP connection to %s beyond loopback: refused inside the namespace, nothing left it", addr)
	if proto == "udp" {
		what = fmt.Sprintf("the agent sent a UDP datagram to %s beyond loopback: it reached no one (every address is local to the namespace), nothing left it", addr)
	}
	for r := range k.runs {
		r.observe("%s", what)
	}
	if len(k.runs) == 0 {
		k.logf("%s connection to %s attempted while no session runs", proto, addr)
	}
}

// lookedUp reports one query to the sessions running now (a kernel serves
// one session at a time, so that is the one whose agent asked).
func (k *Kernel) lookedUp(name, qtype string) {
	k.runsMu.Lock()
	defer k.runsMu.Unlock()
	for r := range k.runs {
		r.observe("the agent looked up %q beyond loopback (DNS): the bridge's stub resolver answered NXDOMAIN, nothing left the namespace", name)
	}
	if len(k.runs) == 0 {
		k.logf("lookup of %q (%s) while no session runs", name, qtype)
	}
}

// sessionTimeout is the profile's limit for one run of the agent (default
// 120 s), scaled by TimeoutMultiplier.
func (k *Kernel) sessionTimeout() time.Duration {
	return time.Duration(k.Profile.SessionTimeout().Seconds() * max(k.TimeoutMultiplier, 1) * float64(time.Second))
}

// helperGrace is how long a process of the agent may take to end by itself
// after the agent exits before it counts as left running: one second,
// scaled by TimeoutMultiplier, as a slow machine is slow for helpers too.
func (k *Kernel) helperGrace() time.Duration {
	return time.Duration(max(k.TimeoutMultiplier, 1) * float64(time.Second))
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
