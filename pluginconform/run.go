package pluginconform

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/callback"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/spec"

	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/pluginconform/kit"
)

// Protocol is what a plugin report names as the protocol checked.
const Protocol = "pluggableharness tool.v1 + hook.v1 over hashicorp/go-plugin gRPC (handshake protocol version 1)"

// LaunchError is a run that could not check the plugin at all: it never
// completed the handshake, or rejected the configuration conform gave it.
// Run still returns a report, every requirement in error with the reason.
// Every category shares it.
type LaunchError = category.LaunchError

// run is one conformance run's state.
type run struct {
	opt     Options
	now     func() time.Time
	rec     *kit.Recorder
	cb      *callback.Server
	secrets *kit.Secrets
	plugin  *launch.Plugin
	schema  *toolv1.GetSchemaResponse
	config  map[string]any
	wd      string // the working directory every call gets
	stats   Stats
	// blocked are the interactive operations that waited for an answer
	// (rec.Judged the requirements some call gave a pass or a fail).
	blocked map[string]bool
}

// Stats are figures of a run, for people (not verdicts): GeneratedCalls is
// how many Invoke calls ran generated arguments.
type Stats = category.Stats

// Run checks the plugin and returns its report. An error with a nil
// report means conform itself could not run; a *LaunchError comes with a
// report that says why nothing could be checked.
func Run(ctx context.Context, opt Options) (*report.Report, Stats, error) {
	kit.RunMu.Lock()
	defer kit.RunMu.Unlock()
	if err := opt.defaults(); err != nil {
		return nil, Stats{}, err
	}
	cat, err := spec.LoadPlugin()
	if err != nil {
		return nil, Stats{}, err
	}
	restore, seed, err := kit.ConfigureRapid(opt.Cases, opt.Seed)
	if err != nil {
		return nil, Stats{}, err
	}
	defer restore()
	r := &run{opt: opt, now: opt.Now, rec: kit.NewRecorder(opt.Now, opt.Progress), cb: callback.New(), secrets: &kit.Secrets{}, blocked: map[string]bool{}}
	r.stats.Seed = seed
	started := r.now()
	if r.wd, err = r.workdir(); err != nil {
		return nil, Stats{}, err
	}
	if opt.AllowEffects == "" {
		defer os.RemoveAll(r.wd)
	}
	defer r.stop()

	var lerr error
	if reason := r.prepare(ctx); reason != "" {
		lerr = &LaunchError{Reason: r.secrets.Redact(reason)}
	} else {
		r.checkOperations(ctx)
		r.checkRender(ctx)
		r.checkHooks(ctx)
		r.checkSecrets()
	}
	k := report.Kernel{Name: "plugin", Command: strings.Join(opt.Argv, " ")}
	if d := r.describe(); d != nil {
		k.Name, k.Version = r.secrets.Redact(d.GetName()), r.secrets.Redact(d.GetVersion())
	}
	warnings := []string{fmt.Sprintf("generated cases used seed %d (conform plugin --seed %d repeats them)", seed, seed)}
	if opt.AllowEffects == "" {
		warnings = append(warnings, "resource operations were not invoked: give --allow-effects DIR to run them in a scratch folder")
	}
	rep := report.BuildWith(cat, k, r.rec.Redacted(r.secrets.Redact), started, r.now().Sub(started), report.BuildOptions{Warnings: warnings})
	rep.Protocol = Protocol
	return rep, r.stats, lerr
}

// workdir is the scratch folder the user allowed, or an empty temporary
// one that read-only calls get as their working directory.
func (r *run) workdir() (string, error) {
	if r.opt.AllowEffects != "" {
		if err := os.MkdirAll(r.opt.AllowEffects, 0o755); err != nil {
			return "", fmt.Errorf("--allow-effects %s: %w", r.opt.AllowEffects, err)
		}
		return r.opt.AllowEffects, nil
	}
	return os.MkdirTemp("", "conform-plugin-")
}

// start launches the plugin if it is not running.
func (r *run) start(ctx context.Context) (*launch.Plugin, error) {
	if r.plugin != nil && !r.plugin.Exited() {
		return r.plugin, nil
	}
	r.stop()
	r.stats.Launches++
	p, err := launch.Launch(ctx, launch.Spec{
		Argv: r.opt.Argv, Env: r.opt.Env, StartTimeout: r.opt.StartTimeout, Callback: r.cb,
		Output:      &kit.StreamWatch{S: r.secrets, Where: "the plugin's stderr"},
		DialOptions: []grpc.DialOption{grpc.WithStatsHandler(cancelOnSend{})},
	})
	if err != nil {
		return nil, err
	}
	r.plugin = p
	return p, nil
}

// restart launches a fresh plugin and configures it, for the next group
// of checks after one that left the plugin dead; "" when it worked.
func (r *run) restart(ctx context.Context) string {
	if r.plugin != nil && !r.plugin.Exited() {
		return ""
	}
	p, err := r.start(ctx)
	if err != nil {
		return "the plugin could not be launched again: " + err.Error()
	}
	if err := r.configure(ctx, p, r.config); err != nil {
		return "the plugin relaunched rejected its configuration: " + err.Error()
	}
	return ""
}

func (r *run) stop() {
	if r.plugin != nil {
		r.plugin.Kill()
		r.plugin = nil
	}
}

// died describes a plugin that is gone, given the error a call ended
// with: its exit status and stderr tail, or "" while it runs.
func (r *run) died(err error) string {
	if r.plugin == nil {
		return ""
	}
	// After a transport failure the exit may be a moment behind; an answer
	// the plugin chose (InvalidArgument, Unimplemented, ...) is no sign of
	// one, and needs no wait.
	switch status.Code(err) {
	case codes.Unavailable, codes.Canceled, codes.Unknown, codes.Internal, codes.DeadlineExceeded:
		for i := 0; i < 100 && !r.plugin.Exited(); i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	st := r.plugin.ExitStatus()
	if st == "" {
		return ""
	}
	msg := "the plugin " + st
	if t := strings.TrimSpace(r.plugin.StderrTail()); t != "" {
		msg += "; last lines of its stderr:\n" + tailLines(t, 15)
	}
	return msg
}

func tailLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
