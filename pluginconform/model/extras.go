package model

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	hookv1 "github.com/agentconform/conform/api/gen/pluggableharness/hook/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	"github.com/agentconform/conform/pluginconform/hookgen"
	"github.com/agentconform/conform/pluginconform/kit"

	"pgregory.net/rapid"
)

// checkCountTokens counts texts for every served model (MP-30).
func (r *run) checkCountTokens(ctx context.Context) {
	s := r.rec.Scenario("model/count-tokens", "CountTokens", "MP-30")
	defer r.rec.Add(s)
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	for _, m := range r.caps.GetModels() {
		count := func(text string) (int64, error) {
			c, cancel := r.call(ctx)
			defer cancel()
			resp, err := r.client.CountTokens(c, &modelv1.CountTokensRequest{Text: text, ModelId: m.GetId()})
			r.secrets.SeeErr("a CountTokens error", err)
			return resp.GetCount(), err
		}
		step := fmt.Sprintf("model %q: CountTokens", m.GetId())
		empty, err := count("")
		if status.Code(err) == codes.Unimplemented {
			s.Fail(step+" is implemented", "CountTokens is unimplemented: the kernel falls back to its heuristic", "MP-30")
			return
		}
		if err != nil {
			s.Fail(step+" answers", r.problem("CountTokens", err), "MP-30")
			continue
		}
		var bad []string
		if empty < 0 {
			bad = append(bad, fmt.Sprintf("the empty text counts %d", empty))
		}
		for _, text := range []string{"alpha", "alpha bravo charlie delta", strings.Repeat("echo foxtrot ", 50)} {
			a, err1 := count(text)
			b, err2 := count(text)
			switch {
			case err1 != nil || err2 != nil:
				bad = append(bad, fmt.Sprintf("counting %q failed", kit.Clip(text, 40)))
			case a != b:
				bad = append(bad, fmt.Sprintf("%q counts %d, then %d", kit.Clip(text, 40), a, b))
			case a < 1:
				bad = append(bad, fmt.Sprintf("%q counts %d", kit.Clip(text, 40), a))
			case a < empty:
				bad = append(bad, fmt.Sprintf("%q counts %d, less than the empty text's %d", kit.Clip(text, 40), a, empty))
			}
		}
		if len(bad) == 0 {
			r.countOK[m.GetId()] = true
		}
		s.Check(step+": a non-negative count, the same for the same text, at least 1 for non-empty text", strings.Join(bad, "; "), "MP-30")
	}
	s.Unverifiable("the counts come from the vendor's tokenizer", "which tokenizer counts is inside the plugin", "MP-30")
}

// checkRender renders what the plugin emitted (MP-29).
func (r *run) checkRender(ctx context.Context) {
	s := r.rec.Scenario("model/render", "Render of emitted payloads", "MP-29")
	defer r.rec.Add(s)
	emitted := r.cb.Emitted()
	if len(emitted) == 0 {
		s.NotReached("Render answers a tree for an emitted payload", "the plugin emitted nothing to render", "MP-29")
		return
	}
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	seen := map[string]bool{}
	for _, e := range emitted {
		key := e.SchemaVersion + "\x00" + string(e.Payload)
		if seen[key] || len(seen) >= 5 {
			continue
		}
		seen[key] = true
		c, cancel := r.call(ctx)
		resp, err := r.client.Render(c, &modelv1.RenderRequest{Payload: e.Payload, SchemaVersion: e.SchemaVersion})
		cancel()
		r.secrets.SeeMsg("a Render tree", resp)
		r.secrets.SeeErr("a Render error", err)
		step := fmt.Sprintf("Render of a %s payload (schema_version %q) answers a tree", e.Kind, e.SchemaVersion)
		switch {
		case status.Code(err) == codes.Unimplemented:
			s.Skipf("Render is not implemented (an optional RPC; the kernel renders generically)")
			return
		case err != nil:
			s.Fail(step, r.problem("Render", err), "MP-29")
		case resp.GetTree().GetRoot() == nil:
			s.Fail(step, "the tree has no root", "MP-29")
		default:
			s.Pass(step, "MP-29")
		}
	}
}

// checkHooks dispatches a generated payload, in observe mode, at every
// hook point the plugin declares (MP-34).
func (r *run) checkHooks(ctx context.Context) {
	s := r.rec.Scenario("model/hooks", "declared hook points are served", "MP-34")
	defer r.rec.Add(s)
	pts := r.caps.GetSupportedHookPoints()
	if len(pts) == 0 {
		s.Pass("supported_hook_points is empty: no hook point to serve", "MP-34")
		return
	}
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	hook := hookv1.NewHookSubscriberServiceClient(r.plugin.Conn)
	for _, p := range pts {
		if !containsPoint(hookgen.Points(), p) {
			continue // not a dispatchable point: the declaration check failed it
		}
		var payload *hookv1.HookPayload
		kit.SetChecks(1)
		rapid.Check(&kit.TB{}, func(t *rapid.T) { payload = hookgen.Payload(p).Draw(t, "payload") })
		c, cancel := context.WithTimeout(ctx, r.opt.HookTimeout)
		resp, err := hook.DispatchHook(c, &hookv1.DispatchHookRequest{Payload: payload, Mode: hookv1.HookMode_HOOK_MODE_OBSERVE})
		cancel()
		r.secrets.SeeMsg("a DispatchHook answer", resp)
		r.secrets.SeeErr("a DispatchHook error", err)
		step := "declared hook point " + p.String() + " is answered by DispatchHook"
		switch {
		case status.Code(err) == codes.Unimplemented:
			s.Fail(step, "DispatchHook is unimplemented (HookSubscriberService not served)", "MP-34")
		case err != nil:
			s.Fail(step, r.problem("DispatchHook", err), "MP-34")
		default:
			s.Pass(step, "MP-34")
		}
	}
}

func containsPoint[T comparable](list []T, p T) bool {
	for _, e := range list {
		if e == p {
			return true
		}
	}
	return false
}

// checkSecrets gives MP-18 its verdict from the watch that saw everything
// the plugin sent.
func (r *run) checkSecrets() {
	s := r.rec.Scenario("model/secrets", "no secret echoed", "MP-18")
	defer r.rec.Add(s)
	for _, e := range r.cb.Emitted() {
		r.secrets.See("an event the plugin emitted ("+e.Kind.String()+")", e.Payload)
	}
	for _, l := range r.cb.Logs() {
		r.secrets.See("a log entry the plugin sent through the Log callback", []byte(l))
	}
	if !r.secrets.Any() {
		s.NotReached("no sensitive value appears in anything the plugin sent", "the configuration schema declares no sensitive attribute, so the plugin was given no secret to keep", "MP-18")
		return
	}
	hits, seen := r.secrets.Found()
	if len(hits) == 0 {
		s.Pass(fmt.Sprintf("no sensitive value appears in anything the plugin sent (%d answers, events, errors, log entries and stderr writes scanned)", seen), "MP-18")
		return
	}
	for _, h := range hits {
		s.Fail("no sensitive value appears in anything the plugin sent", h, "MP-18")
	}
}

// checkOutOfScope names what the wire cannot show (MP-35).
func (r *run) checkOutOfScope() {
	s := r.rec.Scenario("model/scope", "no realtime or embeddings surface", "MP-35")
	defer r.rec.Add(s)
	s.Unverifiable("the plugin serves no realtime or embeddings surface", "ModelService has no RPC for either, so nothing on this wire can carry them", "MP-35")
}
