package provkit

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agentconform/conform/pluginconform/callback"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/launch"
)

// Host launches the plugin under test as a kernel does, under its
// category's plugin-map key, and relaunches it after a crash.
type Host struct {
	Argv, Env    []string
	Key          string // launch.KeyContext, launch.KeyMemory, ...
	StartTimeout time.Duration
	CallTimeout  time.Duration
	CB           *callback.Server
	Secrets      *kit.Secrets
	Plugin       *launch.Plugin
	Launches     int
	// stderr counts what the plugin wrote to stderr, over every launch.
	stderr atomic.Int64
}

// counter counts bytes written.
type counter struct{ n *atomic.Int64 }

func (c counter) Write(p []byte) (int, error) { c.n.Add(int64(len(p))); return len(p), nil }

// Flood limits: more than this is named in the report, never a verdict
// (no row forbids a chatty plugin), so a flood is seen, not hidden.
const (
	FloodStderrBytes = 1 << 20
	FloodLogEntries  = 10000
)

// Floods names what the plugin flooded: its stderr, or the kernel's Log
// callback; nil when neither.
func (h *Host) Floods() []string {
	var out []string
	if n := h.stderr.Load(); n > FloodStderrBytes {
		out = append(out, fmt.Sprintf("the plugin flooded its stderr: %d bytes (conform kept the last few KiB and scanned all of it for secrets)", n))
	}
	if n := len(h.CB.Logs()); n > FloodLogEntries {
		out = append(out, fmt.Sprintf("the plugin flooded the Log callback: %d entries", n))
	}
	return out
}

// Start launches the plugin unless it is running.
func (h *Host) Start(ctx context.Context) (*launch.Plugin, error) {
	if h.Plugin != nil && !h.Plugin.Exited() {
		return h.Plugin, nil
	}
	h.Stop()
	h.Launches++
	p, err := launch.Launch(ctx, launch.Spec{
		Argv: h.Argv, Env: h.Env, StartTimeout: h.StartTimeout, Callback: h.CB, Key: h.Key,
		Output: io.MultiWriter(&kit.StreamWatch{S: h.Secrets, Where: "the plugin's stderr"}, counter{&h.stderr}),
	})
	if err != nil {
		return nil, err
	}
	h.Plugin = p
	return p, nil
}

// Stop kills the plugin and what it started.
func (h *Host) Stop() {
	if h.Plugin != nil {
		h.Plugin.Kill()
		h.Plugin = nil
	}
}

// Call bounds one call by the call timeout.
func (h *Host) Call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, h.CallTimeout)
}

// Died describes a plugin that is gone after err: its exit status and
// stderr tail, or "" while it runs.
func (h *Host) Died(err error) string {
	if h.Plugin == nil {
		return ""
	}
	if Transport(err) {
		// After a transport failure the exit may be a moment behind; an
		// answer the plugin chose is no sign of one, and needs no wait.
		for i := 0; i < 100 && !h.Plugin.Exited(); i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	st := h.Plugin.ExitStatus()
	if st == "" {
		return ""
	}
	msg := "the plugin " + st
	if t := strings.TrimSpace(h.Plugin.StderrTail()); t != "" {
		msg += "; last lines of its stderr:\n" + TailLines(t, 15)
	}
	return msg
}

// Broken says why a failed call is no answer at all — the plugin died or
// did not answer within the call timeout — or "" when err is an answer
// the plugin chose (or nil).
func (h *Host) Broken(method string, err error) string {
	if err == nil {
		return ""
	}
	if d := h.Died(err); d != "" {
		return method + ": " + d
	}
	if status.Code(err) == codes.DeadlineExceeded {
		return fmt.Sprintf("%s did not answer within %v (the call hung)", method, h.CallTimeout)
	}
	if Transport(err) {
		return method + ": the connection failed (" + StatusText(err) + ")"
	}
	return ""
}

// Problem explains any failed call: broken, or the status it answered.
func (h *Host) Problem(method string, err error) string {
	if err == nil {
		return ""
	}
	if b := h.Broken(method, err); b != "" {
		return b
	}
	return method + " answered " + StatusText(err)
}
