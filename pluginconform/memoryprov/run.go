package memoryprov

import (
	"context"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/callback"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/pluginconform/provkit"
	"github.com/agentconform/conform/spec"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	memoryv1 "github.com/agentconform/conform/api/gen/pluggableharness/memory/v1"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/kit"
)

// Protocol is what a report names as the protocol checked.
const Protocol = "pluggableharness memory.v1 over hashicorp/go-plugin gRPC (plugin key memory, handshake protocol version 1)"

type run struct {
	opt     Options
	ss      *provkit.Session
	c       *kit.Recorder
	host    *provkit.Host
	secrets *kit.Secrets
	cb      *callback.Server
	caps    *memoryv1.MemoryCapabilities
	config  map[string]any
	scratch string
	errs    []seenErr
	// alive are the records conform wrote and did not delete, by id;
	// gone the ids it deleted or rejected.
	alive map[string]*memoryv1.MemoryRecord
	gone  map[string]bool
	// unserved names the required methods that answered Unimplemented.
	unserved []string
	stats    Stats
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
		Profile: spec.ProfileMemoryProvider, Key: launch.KeyMemory, ScratchPrefix: "conform-memory-",
		Argv: opt.Argv, Env: opt.Env, Cases: opt.Cases, Seed: opt.Seed,
		StartTimeout: opt.StartTimeout, CallTimeout: opt.CallTimeout, Now: opt.Now, Progress: opt.Progress,
	})
	if err != nil {
		return nil, Stats{}, err
	}
	defer ss.End()
	sec := ss.Secrets
	r := &run{opt: opt, ss: ss, c: ss.Rec, host: ss.Host, secrets: sec, cb: ss.CB, scratch: ss.Scratch, alive: map[string]*memoryv1.MemoryRecord{}, gone: map[string]bool{}}
	r.stats.Seed = ss.Seed
	var lerr error
	if reason := r.prepare(ctx); reason != "" {
		lerr = &category.LaunchError{Reason: sec.Redact(reason)}
	} else {
		r.checkRecency(ctx)
		r.checkWrites(ctx)
		r.checkUnknownIDs(ctx)
		r.checkList(ctx)
		r.checkRecall(ctx)
		r.checkRatificationRefused(ctx)
		r.checkRender(ctx)
		r.checkTool(ctx)
		r.checkHooks(ctx)
		r.checkSurface()
		r.checkTaxonomy()
		r.checkSecrets()
		r.unverifiable()
		r.unjudged()
	}
	r.stats.Launches = r.host.Launches
	rep := ss.Report("memory provider", Protocol, opt.Argv, r.describe())
	return rep, r.stats, lerr
}

func (r *run) client() memoryv1.MemoryServiceClient {
	return memoryv1.NewMemoryServiceClient(r.host.Plugin.Conn)
}

func (r *run) describe() *commonv1.ProducerRef {
	return r.host.Producer(func(ctx context.Context) (*commonv1.ProducerRef, error) {
		resp, err := r.client().Describe(ctx, &memoryv1.DescribeRequest{})
		return resp.GetProducer(), err
	})
}

func (r *run) allInError(reason string) { r.ss.AllInError("memory/launch", reason) }

// relaunch starts a fresh, configured plugin after one died. The records
// a plugin kept in memory die with it, so conform forgets them too.
func (r *run) relaunch(ctx context.Context) string {
	if r.host.Plugin != nil && !r.host.Plugin.Exited() {
		return ""
	}
	r.alive = map[string]*memoryv1.MemoryRecord{}
	return r.host.Relaunch(ctx, func(ctx context.Context) error { return r.configure(ctx, r.config) })
}

// seen records an answered error for the taxonomy, and a required method
// the plugin does not serve (MM-01).
func (r *run) seen(where string, err error) {
	r.secrets.SeeErr(where, err)
	if err == nil || r.host.Broken(where, err) != "" {
		return
	}
	if provkit.Unimplemented(err) {
		switch where {
		case "ApproveRecord", "RejectRecord", "Render":
		default:
			if !contains(r.unserved, where) {
				r.unserved = append(r.unserved, where)
			}
		}
		return
	}
	r.errs = append(r.errs, seenErr{where: where, err: err})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func cond(bad bool, msg string) string {
	if bad {
		return msg
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
