package provkit

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/callback"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/spec"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
)

// Session is the scaffolding of one context or memory provider run: the
// profile's catalog, rapid configured for the run's seed, the recorder,
// the secret watch, the host that launches the plugin under its key, and
// a scratch folder. Begin takes the run lock (kit.RunMu: rapid's settings
// are process-wide) and End releases it with everything else.
type Session struct {
	Profile string
	Cat     *spec.Catalog
	Rec     *kit.Recorder
	Host    *Host
	Secrets *kit.Secrets
	CB      *callback.Server
	Seed    uint64
	Scratch string
	Started time.Time
	now     func() time.Time
	restore func()
}

// SessionSpec is what Begin needs: the profile and plugin-map key, the
// scratch folder's name prefix, and the run's options.
type SessionSpec struct {
	Profile, Key, ScratchPrefix string
	Argv, Env                   []string
	Cases                       int
	Seed                        uint64
	StartTimeout, CallTimeout   time.Duration
	Now                         func() time.Time
	Progress                    io.Writer
}

// Begin starts a run. On error nothing is left held or created.
func Begin(sp SessionSpec) (*Session, error) {
	kit.RunMu.Lock()
	s := &Session{Profile: sp.Profile, now: sp.Now}
	fail := func(err error) (*Session, error) {
		s.End()
		return nil, err
	}
	var err error
	if s.Cat, err = spec.LoadProfile(sp.Profile); err != nil {
		return fail(err)
	}
	if s.restore, s.Seed, err = kit.ConfigureRapid(sp.Cases, sp.Seed); err != nil {
		return fail(err)
	}
	s.Secrets, s.CB, s.Rec = &kit.Secrets{}, callback.New(), kit.NewRecorder(sp.Now, sp.Progress)
	s.Host = &Host{Argv: sp.Argv, Env: sp.Env, Key: sp.Key, StartTimeout: sp.StartTimeout, CallTimeout: sp.CallTimeout, CB: s.CB, Secrets: s.Secrets}
	if s.Scratch, err = os.MkdirTemp("", sp.ScratchPrefix); err != nil {
		return fail(err)
	}
	s.Started = sp.Now()
	return s, nil
}

// End stops the plugin, removes the scratch folder, restores rapid's
// settings and releases the run lock.
func (s *Session) End() {
	if s.Host != nil {
		s.Host.Stop()
	}
	if s.Scratch != "" {
		_ = os.RemoveAll(s.Scratch)
	}
	if s.restore != nil {
		s.restore()
	}
	kit.RunMu.Unlock()
}

// Report builds the run's report: the plugin named by what Describe
// answered (d; nil: kind), every text redacted of the secrets watched, the
// seed and any flood named in the warnings.
func (s *Session) Report(kind, protocol string, argv []string, d *commonv1.ProducerRef) *report.Report {
	k := report.Kernel{Name: kind, Command: strings.Join(argv, " ")}
	if d != nil {
		k.Name, k.Version = s.Secrets.Redact(d.GetName()), s.Secrets.Redact(d.GetVersion())
	}
	warnings := append([]string{fmt.Sprintf("generated cases used seed %d (conform plugin --seed %d repeats them)", s.Seed, s.Seed)}, s.Host.Floods()...)
	rep := report.BuildWith(s.Cat, k, s.Rec.Redacted(s.Secrets.Redact), s.Started, s.now().Sub(s.Started), report.BuildOptions{Warnings: warnings})
	rep.Protocol = protocol
	return rep
}

// AllInError records one erroring scenario in file naming every
// requirement of the profile, each not reached for reason.
func (s *Session) AllInError(file, reason string) {
	sc := s.Rec.Scenario(file, "launch the plugin")
	for _, q := range s.Cat.Requirements {
		sc.NotReached("launch", reason, q.ID)
	}
	sc.Errorf("%s", reason)
	s.Rec.Add(sc)
}

// Producer is who the running plugin says it is, asked through describe
// (the category's Describe); nil when no plugin runs or the call fails.
func (h *Host) Producer(describe func(context.Context) (*commonv1.ProducerRef, error)) *commonv1.ProducerRef {
	if h.Plugin == nil || h.Plugin.Exited() {
		return nil
	}
	ctx, cancel := h.Call(context.Background())
	defer cancel()
	p, err := describe(ctx)
	if err != nil {
		return nil
	}
	return p
}

// Relaunch starts a fresh plugin, configured by configure, after one
// died; "" when it worked or the plugin still runs.
func (h *Host) Relaunch(ctx context.Context, configure func(context.Context) error) string {
	if h.Plugin != nil && !h.Plugin.Exited() {
		return ""
	}
	if _, err := h.Start(ctx); err != nil {
		return "the plugin could not be launched again: " + err.Error()
	}
	if err := configure(ctx); err != nil {
		return "the plugin relaunched rejected its configuration: " + h.Problem("Configure", err)
	}
	return ""
}
