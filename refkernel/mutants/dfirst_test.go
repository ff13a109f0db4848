package mutants

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/refkernel/dfirst"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// Mutants of the deterministic-first profile (DF-01 … DF-10). Each wraps
// the Session the reference profile opens and breaks one of its seams, or
// swaps the condition evaluator.
func init() {
	register(
		Mutant{Name: "dfirst/model-before-determined-steps", Targets: []string{"DF-01"},
			Breaks: "the model is asked before the determined steps run: the first framework pass of a run does nothing",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return &lateFirstPass{Session: rt} })},
		Mutant{Name: "dfirst/gated-tool-offered", Targets: []string{"DF-02"},
			Breaks: "the model is offered every tool, gated or not",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return offerAll{rt} })},
		Mutant{Name: "dfirst/tool-list-frozen", Targets: []string{"DF-02", "DF-10"},
			Breaks: "the tool list is computed once per run and never recomputed after a tool call",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return &frozenOffer{Session: rt} })},
		Mutant{Name: "dfirst/gate-only-in-tool-list", Targets: []string{"DF-03"},
			Breaks: "the gate is checked only when the tool list is built: every call is dispatched",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return admitAll{rt} })},
		Mutant{Name: "dfirst/unset-key-open", Targets: []string{"DF-04"},
			Breaks: "a condition on a key that was never written holds",
			Apply:  dfEval(func(err error) bool { return err == dfirst.ErrUnset }, false)},
		Mutant{Name: "dfirst/zero-is-truthy", Targets: []string{"DF-04"},
			Breaks: "bare truthiness holds for any set value but false and null, so a count of 0 opens its gate",
			Apply:  dfEval(func(error) bool { return false }, true)},
		Mutant{Name: "dfirst/unevaluable-open", Targets: []string{"DF-04"},
			Breaks: "a comparison that cannot be made (a string against a number) holds",
			Apply:  dfEval(func(err error) bool { return err != nil && err != dfirst.ErrUnset }, false)},
		Mutant{Name: "dfirst/confirmation-skipped", Targets: []string{"DF-05"},
			Breaks: "a call that needs confirmation runs without asking the user",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return noConfirm{rt} })},
		Mutant{Name: "dfirst/ineligible-skill-offered", Targets: []string{"DF-06"},
			Breaks: "the model is offered every skill, eligible or not",
			Apply: dfMutant(func(cfg wire.DFConfig, rt dfirst.Session) dfirst.Session {
				return allSkills{Session: rt, skills: cfg.Skills}
			})},
		Mutant{Name: "dfirst/ineligible-switch-accepted", Targets: []string{"DF-06"},
			Breaks: "the model's switch to any skill is accepted, eligible or not",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return &anySwitch{Session: rt} })},
		Mutant{Name: "dfirst/cancel-as-step-failure", Targets: []string{"DF-07"},
			Breaks: "a step's tool cancelled in flight counts as a failed step: the run ends completed with an error message",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return cancelAsFailure{rt} })},
		Mutant{Name: "dfirst/cancel-reported-as-error", Targets: []string{"DF-07"},
			Breaks: "a cancelled session reports an error event as it ends",
			Apply: func(p loop.Parts) loop.Parts {
				p.Hooks = errorOnCancel{Dispatcher: hooks.Standard{}}
				return p
			}},
		Mutant{Name: "dfirst/memory-committed-on-return", Targets: []string{"DF-08"},
			Breaks: "a tool's memory writes are held back until it returns, so a cancel rolls them back",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return &bufferedWrites{Session: rt} })},
		Mutant{Name: "dfirst/cancelled-call-recorded", Targets: []string{"DF-09"},
			Breaks: "a call cancelled in flight is recorded as a call",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return recordAll{rt} })},
		Mutant{Name: "dfirst/cancelled-step-skipped", Targets: []string{"DF-09"},
			Breaks: "an execute_tool step whose call was cancelled counts as done, so it never runs again",
			Apply: dfMutant(func(cfg wire.DFConfig, rt dfirst.Session) dfirst.Session {
				return &skipCancelled{Session: rt, blocks: cfg.Blocks, open: map[string]string{}}
			})},
		Mutant{Name: "dfirst/no-pass-after-tool-call", Targets: []string{"DF-10"},
			Breaks: "the framework runs only before the first model request, never again after a tool call",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return &firstPassOnly{Session: rt} })},
	)
}

// dfMutant swaps the profile for one whose sessions are wrapped.
func dfMutant(wrap func(cfg wire.DFConfig, rt dfirst.Session) dfirst.Session) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.DFirst = wrapProfile{wrap: wrap}
		return p
	}
}

type wrapProfile struct {
	dfirst.Standard
	wrap func(cfg wire.DFConfig, rt dfirst.Session) dfirst.Session
}

func (p wrapProfile) Open(cfg wire.DFConfig, tools []wire.ToolSchema, prior *dfirst.State) dfirst.Session {
	return p.wrap(cfg, p.Standard.Open(cfg, tools, prior))
}

// dfEval swaps the condition evaluator: a clause whose evaluation fails
// with an error open accepts holds; with sloppyTruth, any set value but
// false and null is true.
func dfEval(open func(error) bool, sloppyTruth bool) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.DFirst = dfirst.Standard{Eval: brokenEval{open: open, sloppyTruth: sloppyTruth}}
		return p
	}
}

type brokenEval struct {
	open        func(error) bool
	sloppyTruth bool
}

func (e brokenEval) Holds(conds []wire.DFCondition, mem map[string]json.RawMessage) bool {
	for _, c := range conds {
		ok, err := dfirst.Eval(c, mem)
		if e.sloppyTruth && err == nil && (c.Op == "" || c.Op == wire.OpTruthy) {
			v := strings.TrimSpace(string(mem[c.Key]))
			ok = v != "false" && v != "null"
		}
		if err != nil {
			ok = e.open(err)
		}
		if !ok {
			return false
		}
	}
	return true
}

type lateFirstPass struct {
	dfirst.Session
	passes int
}

func (m *lateFirstPass) Pass(ctx context.Context, env dfirst.Env) (dfirst.Outcome, error) {
	m.passes++
	if m.passes == 1 {
		return dfirst.Outcome{}, nil
	}
	return m.Session.Pass(ctx, env)
}

type firstPassOnly struct {
	dfirst.Session
	passes int
}

func (m *firstPassOnly) Pass(ctx context.Context, env dfirst.Env) (dfirst.Outcome, error) {
	m.passes++
	if m.passes > 1 {
		return dfirst.Outcome{}, nil
	}
	return m.Session.Pass(ctx, env)
}

type offerAll struct{ dfirst.Session }

func (offerAll) Offered(specs []wire.ToolSpec) []wire.ToolSpec { return specs }

type frozenOffer struct {
	dfirst.Session
	once   sync.Once
	frozen []string
}

func (m *frozenOffer) Offered(specs []wire.ToolSpec) []wire.ToolSpec {
	m.once.Do(func() {
		for _, s := range m.Session.Offered(specs) {
			m.frozen = append(m.frozen, s.Name)
		}
	})
	var out []wire.ToolSpec
	for _, s := range specs {
		if slices.Contains(m.frozen, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

type admitAll struct{ dfirst.Session }

func (admitAll) Admit(context.Context, dfirst.Env, dfirst.Call) (dfirst.Verdict, error) {
	return dfirst.Allow, nil
}

// noConfirm keeps the gate but answers every confirmation itself, yes.
type noConfirm struct{ dfirst.Session }

func (m noConfirm) Admit(ctx context.Context, env dfirst.Env, c dfirst.Call) (dfirst.Verdict, error) {
	env.Confirm = func(context.Context, wire.ConfirmParams) (wire.ConfirmResult, error) {
		return wire.ConfirmResult{Confirmed: true}, nil
	}
	return m.Session.Admit(ctx, env, c)
}

type allSkills struct {
	dfirst.Session
	skills []wire.DFSkill
}

func (m allSkills) Routing(req *wire.ModelStreamParams) {
	m.Session.Routing(req)
	req.Skills = nil
	for _, sk := range m.skills {
		req.Skills = append(req.Skills, wire.SkillSpec{Name: sk.Name, Description: sk.Description})
	}
}

type anySwitch struct {
	dfirst.Session
	mu     sync.Mutex
	forced string
}

func (m *anySwitch) Switch(skill string) bool {
	if !m.Session.Switch(skill) {
		m.mu.Lock()
		m.forced = skill
		m.mu.Unlock()
	}
	return true
}

func (m *anySwitch) Routing(req *wire.ModelStreamParams) {
	m.Session.Routing(req)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.forced != "" {
		req.ActiveSkill = m.forced
	}
}

type cancelAsFailure struct{ dfirst.Session }

func (m cancelAsFailure) Pass(ctx context.Context, env dfirst.Env) (dfirst.Outcome, error) {
	out, err := m.Session.Pass(ctx, env)
	if err != nil && ctx.Err() != nil {
		return dfirst.Outcome{Responses: []string{"A step failed: " + err.Error()}, End: true}, nil
	}
	return out, err
}

// errorOnCancel reports an error event when a cancelled session ends.
type errorOnCancel struct{ hooks.Dispatcher }

func (d errorOnCancel) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if req.Point == wire.PointSessionEnd && req.Payload.Status == wire.StatusCancelled {
		host.Emit(env.Host, req.CallContext.SessionID, "", wire.EventError, host.KernelProducer,
			map[string]any{"message": "the session failed: it was cancelled"})
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

// bufferedWrites holds each call's writes until the call has completed.
type bufferedWrites struct {
	dfirst.Session
	mu      sync.Mutex
	pending map[string]map[string]json.RawMessage
}

func (m *bufferedWrites) Write(callID string, values map[string]json.RawMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending == nil {
		m.pending = map[string]map[string]json.RawMessage{}
	}
	if m.pending[callID] == nil {
		m.pending[callID] = map[string]json.RawMessage{}
	}
	for k, v := range values {
		m.pending[callID][k] = v
	}
	return nil
}

func (m *bufferedWrites) Finish(c dfirst.Call, completed bool) {
	m.mu.Lock()
	vals := m.pending[c.ID]
	delete(m.pending, c.ID)
	m.mu.Unlock()
	if completed && len(vals) > 0 {
		_ = m.Session.Write(c.ID, vals) // still in flight for the inner session
	}
	m.Session.Finish(c, completed)
}

type recordAll struct{ dfirst.Session }

func (m recordAll) Finish(c dfirst.Call, _ bool) { m.Session.Finish(c, true) }

// skipCancelled moves past a step whose call did not complete.
type skipCancelled struct {
	dfirst.Session
	blocks []wire.DFBlock
	mu     sync.Mutex
	open   map[string]string // call id → block of a step's call in flight
}

func (m *skipCancelled) Begin(c dfirst.Call) {
	if c.Origin == wire.OriginStep {
		m.mu.Lock()
		m.open[c.ID] = c.Block
		m.mu.Unlock()
	}
	m.Session.Begin(c)
}

func (m *skipCancelled) Finish(c dfirst.Call, completed bool) {
	if completed {
		m.mu.Lock()
		delete(m.open, c.ID)
		m.mu.Unlock()
	}
	m.Session.Finish(c, completed)
}

func (m *skipCancelled) Close() (dfirst.State, wire.DFState) {
	st, out := m.Session.Close()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, block := range m.open {
		if i := slices.IndexFunc(m.blocks, func(b wire.DFBlock) bool { return b.Name == block }); i >= 0 && i < len(st.Positions) {
			st.Positions[i]++
		}
	}
	return st, out
}

// TestDFMutants runs only this area's mutants (DFMUTANTS=1), a quicker
// loop than the whole kill matrix while working on the profile.
func TestDFMutants(t *testing.T) {
	if os.Getenv("DFMUTANTS") == "" {
		t.Skip("set DFMUTANTS=1 to run the deterministic-first mutants alone")
	}
	for _, mu := range all() {
		if !strings.HasPrefix(mu.Name, "dfirst/") {
			continue
		}
		r := run(t, mu.Name, mu.Apply(loop.DefaultParts()), "@"+strings.Join(mu.Targets, ",@"))
		var by []string
		for _, q := range r.Requirements {
			if slices.Contains(mu.Targets, q.ID) && (q.Status == report.Fail || q.Status == report.Error) {
				by = append(by, q.ID+" "+string(q.Status)+": "+q.Reason)
			}
		}
		if len(by) == 0 {
			t.Errorf("SURVIVED %s", mu.Name)
		} else {
			t.Logf("killed %s by %s", mu.Name, strings.Join(by, " | "))
		}
	}
}
