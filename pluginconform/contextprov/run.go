package contextprov

import (
	"context"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/callback"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/pluginconform/provkit"
	"github.com/agentconform/conform/spec"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/kit"
)

// Protocol is what a report names as the protocol checked.
const Protocol = "pluggableharness context.v1 over hashicorp/go-plugin gRPC (plugin key context, handshake protocol version 1)"

// run is one conformance run's state.
type run struct {
	opt     Options
	ss      *provkit.Session
	c       *kit.Recorder
	host    *provkit.Host
	secrets *kit.Secrets
	cb      *callback.Server
	caps    *contextv1.ContextCapabilities
	config  map[string]any
	// scratch holds the source file conform wrote (source, when conform
	// chose the source attribute's value) and is removed at the end.
	scratch, source string
	// errs collects every error the plugin answered, for the taxonomy.
	errs  []seenErr
	name  string // the provider name its own sections carry
	stats Stats
}

type seenErr struct {
	where string
	err   error
}

// Run checks the plugin and returns its report. An error with a nil
// report means conform itself could not run; a *category.LaunchError comes
// with a report that says why nothing could be checked.
func Run(ctx context.Context, opt Options) (*report.Report, Stats, error) {
	if err := opt.defaults(); err != nil {
		return nil, Stats{}, err
	}
	ss, err := provkit.Begin(provkit.SessionSpec{
		Profile: spec.ProfileContextProvider, Key: launch.KeyContext, ScratchPrefix: "conform-context-",
		Argv: opt.Argv, Env: opt.Env, Cases: opt.Cases, Seed: opt.Seed,
		StartTimeout: opt.StartTimeout, CallTimeout: opt.CallTimeout, Now: opt.Now, Progress: opt.Progress,
	})
	if err != nil {
		return nil, Stats{}, err
	}
	defer ss.End()
	sec := ss.Secrets
	r := &run{opt: opt, ss: ss, c: ss.Rec, host: ss.Host, secrets: sec, cb: ss.CB, scratch: ss.Scratch}
	r.stats.Seed = ss.Seed
	var lerr error
	if reason := r.prepare(ctx); reason != "" {
		lerr = &category.LaunchError{Reason: sec.Redact(reason)}
	} else {
		r.checkContribute(ctx)
		r.checkJIT(ctx)
		r.checkMalformed(ctx)
		r.checkRender(ctx)
		r.checkSourceGone(ctx)
		r.checkTaxonomy()
		r.checkSecrets()
		r.unjudged()
	}
	r.stats.Launches = r.host.Launches
	rep := ss.Report("context provider", Protocol, opt.Argv, r.describe())
	return rep, r.stats, lerr
}

func (r *run) client() contextv1.ContextServiceClient {
	return contextv1.NewContextServiceClient(r.host.Plugin.Conn)
}

func (r *run) describe() *commonv1.ProducerRef {
	return r.host.Producer(func(ctx context.Context) (*commonv1.ProducerRef, error) {
		resp, err := r.client().Describe(ctx, &contextv1.DescribeRequest{})
		return resp.GetProducer(), err
	})
}

// allInError records one erroring scenario naming every requirement.
func (r *run) allInError(reason string) { r.ss.AllInError("context/launch", reason) }

// relaunch starts a fresh, configured plugin after one died; "" when it
// worked.
func (r *run) relaunch(ctx context.Context) string {
	return r.host.Relaunch(ctx, func(ctx context.Context) error { return r.configure(ctx, r.config) })
}

// seen records an error the plugin answered (not a transport failure) for
// the taxonomy checks.
func (r *run) seen(where string, err error) {
	r.secrets.SeeErr(where, err)
	if err == nil || r.host.Broken(where, err) != "" {
		return
	}
	r.errs = append(r.errs, seenErr{where: where, err: err})
}

func since(t time.Time) time.Duration { return time.Since(t) }
