package model

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/callback"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/spec"

	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
)

// Protocol is what a model-provider report names as the protocol checked.
const Protocol = "pluggableharness model.v1 (+ hook.v1) over hashicorp/go-plugin gRPC (handshake protocol version 1)"

// Service is the gRPC service a model provider serves.
const Service = "pluggableharness.model.v1.ModelService"

func init() {
	category.Register(category.Category{
		Name: launch.KeyModel, Profile: spec.ProfileModelProvider, Service: Service,
		Summary: "model providers (MP rows)", Run: Run,
	})
}

// run is one conformance run's state.
type run struct {
	opt     category.Options
	now     func() time.Time
	rec     *kit.Recorder
	cb      *callback.Server
	secrets *kit.Secrets
	plugin  *launch.Plugin
	client  modelv1.ModelServiceClient
	caps    *modelv1.Capabilities
	config  map[string]any
	stats   category.Stats
	stderr  *lineCount
	// counts is CountTokens' answer per model and text, when it answers.
	countOK map[string]bool
}

// Run checks the model provider and returns its report. An error with a
// nil report means conform itself could not run; a *category.LaunchError
// comes with a report that says why nothing could be checked.
func Run(ctx context.Context, opt category.Options) (*report.Report, category.Stats, error) {
	kit.RunMu.Lock()
	defer kit.RunMu.Unlock()
	defaults(&opt)
	cat, err := spec.LoadProfile(spec.ProfileModelProvider)
	if err != nil {
		return nil, category.Stats{}, err
	}
	restore, seed, err := kit.ConfigureRapid(opt.Cases, opt.Seed)
	if err != nil {
		return nil, category.Stats{}, err
	}
	defer restore()
	r := &run{opt: opt, now: opt.Now, rec: kit.NewRecorder(opt.Now, opt.Progress), cb: callback.New(),
		secrets: &kit.Secrets{}, stderr: &lineCount{}, countOK: map[string]bool{}}
	r.stats.Seed = seed
	started := r.now()
	defer r.stop()

	var lerr error
	if reason := r.prepare(ctx); reason != "" {
		lerr = &category.LaunchError{Reason: r.secrets.Redact(reason)}
	} else {
		r.checkUnknownModel(ctx)
		for _, m := range r.caps.GetModels() {
			r.checkModel(ctx, m)
		}
		r.checkPricing()
		r.checkCountTokens(ctx)
		r.checkRender(ctx)
		r.checkHooks(ctx)
		r.checkSecrets()
		r.checkOutOfScope()
		r.unjudged()
	}
	k := report.Kernel{Name: "model provider", Command: strings.Join(opt.Argv, " ")}
	if d := r.describe(); d != nil {
		k.Name, k.Version = r.secrets.Redact(d.GetName()), r.secrets.Redact(d.GetVersion())
	}
	warnings := []string{fmt.Sprintf("generated cases used seed %d (conform plugin --seed %d repeats them)", seed, seed)}
	if n := r.stderr.lines.Load(); n > floodLines {
		warnings = append(warnings, fmt.Sprintf("the plugin wrote %d lines to its stderr during the run (a log flood); conform kept only the last few KiB", n))
	}
	if n := len(r.cb.Logs()); n > floodLines {
		warnings = append(warnings, fmt.Sprintf("the plugin sent %d log entries through the Log callback during the run (a log flood)", n))
	}
	rep := report.BuildWith(cat, k, r.rec.Redacted(r.secrets.Redact), started, r.now().Sub(started), report.BuildOptions{Warnings: warnings})
	rep.Protocol = Protocol
	return rep, r.stats, lerr
}

// floodLines is how many stderr lines or log entries make a flood worth a
// warning: the reference writes a handful.
const floodLines = 1000

func defaults(o *category.Options) {
	if o.Cases <= 0 {
		o.Cases = 40
	}
	if o.Multiplier < 1 {
		o.Multiplier = 1
	}
	scale := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
		*d = time.Duration(float64(*d) * o.Multiplier)
	}
	scale(&o.CallTimeout, 10*time.Second)
	scale(&o.HookTimeout, 2*time.Second)
	scale(&o.StartTimeout, 10*time.Second)
	if o.Now == nil {
		o.Now = time.Now
	}
}

// lineCount counts the lines the plugin writes to stderr.
type lineCount struct{ lines atomic.Int64 }

func (c *lineCount) Write(p []byte) (int, error) {
	c.lines.Add(int64(strings.Count(string(p), "\n")))
	return len(p), nil
}

// start launches the plugin if it is not running.
func (r *run) start(ctx context.Context) error {
	if r.plugin != nil && !r.plugin.Exited() {
		return nil
	}
	r.stop()
	r.stats.Launches++
	p, err := launch.Launch(ctx, launch.Spec{
		Argv: r.opt.Argv, Env: r.opt.Env, StartTimeout: r.opt.StartTimeout, Callback: r.cb, Key: launch.KeyModel,
		Output: multi{&kit.StreamWatch{S: r.secrets, Where: "the plugin's stderr"}, r.stderr},
	})
	if err != nil {
		return err
	}
	r.plugin, r.client = p, modelv1.NewModelServiceClient(p.Conn)
	return nil
}

// restart launches a fresh plugin and configures it, for the next group
// of checks after one that left the plugin dead or hung; "" when it worked.
func (r *run) restart(ctx context.Context) string {
	if r.plugin != nil && !r.plugin.Exited() {
		return ""
	}
	if err := r.start(ctx); err != nil {
		return "the plugin could not be launched again: " + err.Error()
	}
	if err := r.configure(ctx, r.config); err != nil {
		return "the plugin relaunched rejected its configuration: " + r.problem("Configure", err)
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
		lines := strings.Split(t, "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		msg += "; last lines of its stderr:\n" + strings.Join(lines, "\n")
	}
	return msg
}

// problem explains a failed unary call: the plugin died, hung, or
// answered an error.
func (r *run) problem(method string, err error) string {
	if d := r.died(err); d != "" {
		return method + ": " + d
	}
	st, _ := status.FromError(err)
	if st.Code() == codes.DeadlineExceeded {
		return fmt.Sprintf("%s did not answer within %v", method, r.opt.CallTimeout)
	}
	return fmt.Sprintf("%s answered gRPC status %s: %s", method, st.Code(), kit.Clip(st.Message(), 300))
}

func (r *run) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.opt.CallTimeout)
}

// multi writes to every writer; none of them fails.
type multi []interface{ Write([]byte) (int, error) }

func (m multi) Write(p []byte) (int, error) {
	for _, w := range m {
		_, _ = w.Write(p)
	}
	return len(p), nil
}
