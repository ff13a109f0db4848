package contextprov

import (
	"context"
	"os"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	"github.com/agentconform/conform/pluginconform/callback"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/provkit"
)

func exact(s *contentv1.ContextSection) int64 {
	return callback.ExactCount(strings.Join(texts(s), ""))
}

func fallback(s *contentv1.ContextSection) int64 {
	return callback.FallbackCount(strings.Join(texts(s), ""))
}

// checkCompactor gives the compactor rows their scenario: CP-23 (MAY) and
// CP-22, which the wire cannot judge.
func (r *run) checkCompactor(s *kit.Scenario, answered bool) {
	if !r.caps.GetCompactor() {
		s.NotReached("a compactor's rewrite summarizes", "the plugin declares compactor false", "CP-22")
		m := r.c.Scenario("context/compactor", "compaction", "CP-23")
		m.Skipf("the plugin declares compactor false")
		r.c.Add(m)
		return
	}
	s.Unverifiable("a compactor's rewrite summarizes rather than truncates", "whether a rewrite preserves meaning cannot be judged from its bytes", "CP-22")
	m := r.c.Scenario("context/compactor", "compaction", "CP-23")
	if answered {
		m.Pass("the plugin declares compactor and its rewritten chains were judged only by the compactor's rules", "CP-23")
	} else {
		m.NotReached("the plugin compacts", "no generated request was answered", "CP-23")
	}
	r.c.Add(m)
}

// recheckCapabilities asks GetCapabilities again: the answer must be the
// first one (CP-05).
func (r *run) recheckCapabilities(ctx context.Context, when string) {
	s := r.c.Scenario("context/capabilities", "GetCapabilities "+when, "CP-05")
	defer r.c.Add(s)
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	caps, reason := r.getCapabilities(ctx)
	if reason != "" {
		s.Errorf("%s", reason)
		return
	}
	s.Check("GetCapabilities answers the same "+when, cond(!proto.Equal(caps, r.caps), "GetCapabilities answered differently "+when+": stability and compactor are fixed properties, not a live read"), "CP-05")
}

// checkJIT asks for the same firing with and without files touched
// (CP-29, MAY).
func (r *run) checkJIT(ctx context.Context) {
	s := r.c.Scenario("context/jit", "just-in-time scoping on files_touched", "CP-29")
	defer r.c.Add(s)
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	base := &contextv1.ContextRequest{SessionId: "conform-session-jit", TurnId: turnID(9000, 1), TokenBudget: r.budget(), ModelTarget: target, WorkingDirectory: r.scratch}
	a, errA := r.contribute(ctx, base)
	touched := proto.Clone(base).(*contextv1.ContextRequest)
	touched.TurnId, touched.FilesTouched = turnID(9000, 2), files
	b, errB := r.contribute(ctx, touched)
	if err := firstErr(errA, errB); r.host.Broken("Contribute", err) != "" {
		s.Errorf("%s", r.host.Broken("Contribute", err))
		return
	} else if err != nil {
		s.NotReached("the plugin contributes differently once files are touched", "Contribute failed: "+provkit.StatusText(err), "CP-29")
		return
	}
	if sameSections(r.own(base, a), r.own(touched, b)) {
		s.Skipf("the plugin contributes the same whatever files_touched says (eager injection)")
		return
	}
	s.Pass("the plugin contributes differently once files are touched", "CP-29")
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// checkMalformed sends requests conform made malformed: a refusal must be
// invalid_request (CP-27); an answer is no verdict.
func (r *run) checkMalformed(ctx context.Context) {
	s := r.c.Scenario("context/malformed", "malformed Contribute requests", "CP-27")
	defer r.c.Add(s)
	good := &contextv1.ContextRequest{SessionId: "conform-session-bad", TurnId: turnID(9100, 1), TokenBudget: r.budget(), ModelTarget: target, WorkingDirectory: r.scratch}
	cases := []struct {
		how string
		req func(*contextv1.ContextRequest)
	}{
		{"a negative token_budget", func(q *contextv1.ContextRequest) { q.TokenBudget = -5 }},
		{"no model_target", func(q *contextv1.ContextRequest) { q.ModelTarget = nil }},
		{"no session_id or turn_id", func(q *contextv1.ContextRequest) { q.SessionId, q.TurnId = "", "" }},
	}
	refused := 0
	for _, c := range cases {
		if reason := r.relaunch(ctx); reason != "" {
			s.Errorf("%s", reason)
			return
		}
		q := proto.Clone(good).(*contextv1.ContextRequest)
		c.req(q)
		_, err := r.contribute(ctx, q)
		if b := r.host.Broken("Contribute", err); b != "" {
			s.Errorf("Contribute with %s: %s", c.how, b)
			continue
		}
		if err == nil {
			s.Observe("CP-27", "Contribute with "+c.how+" was answered, not refused")
			continue
		}
		refused++
		s.Check("Contribute with "+c.how+" is refused as invalid_request",
			cond(!isCategory(err, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_INVALID_REQUEST), "it was refused with "+categoryText(err)), "CP-27")
	}
	if refused == 0 {
		s.NotReached("a malformed request is refused as invalid_request", "the plugin answered every malformed request", "CP-27")
	}
}

// checkSourceGone removes the source conform wrote, then asks again: a
// failure must be source_unavailable (CP-27), and GetCapabilities must
// not change (CP-05).
func (r *run) checkSourceGone(ctx context.Context) {
	if r.source == "" {
		return
	}
	s := r.c.Scenario("context/source-gone", "the source removed after Configure", "CP-27")
	func() {
		defer r.c.Add(s)
		if reason := r.relaunch(ctx); reason != "" {
			s.Errorf("%s", reason)
			return
		}
		if err := os.Remove(r.source); err != nil {
			s.Errorf("removing the source: %v", err)
			return
		}
		req := &contextv1.ContextRequest{SessionId: "conform-session-gone", TurnId: turnID(9200, 1), TokenBudget: r.budget(), ModelTarget: target, WorkingDirectory: r.scratch}
		_, err := r.contribute(ctx, req)
		if b := r.host.Broken("Contribute", err); b != "" {
			s.Errorf("%s", b)
			return
		}
		if err == nil {
			s.NotReached("a source gone at call time is reported as source_unavailable", "the plugin answered (it may have dropped its section, or kept its content)", "CP-27")
			return
		}
		s.Check("a source gone at call time is reported as source_unavailable",
			cond(!isCategory(err, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_SOURCE_UNAVAILABLE), "the call failed with "+categoryText(err)), "CP-27")
	}()
	r.recheckCapabilities(ctx, "after its source was removed")
	_ = os.WriteFile(r.source, []byte(sourceText), 0o644)
}

// isCategory says whether err is an error of category want: by its
// ContextError, or, when it carries none (CP-24 judges that), by the
// gRPC code the category travels on.
func isCategory(err error, want contextv1.ContextErrorCategory) bool {
	ce, st := provkit.Detail[*contextv1.ContextError](err)
	if ce != nil {
		return ce.GetCategory() == want
	}
	return st.Code() == codeOf[want]
}

func categoryText(err error) string {
	ce, _ := provkit.Detail[*contextv1.ContextError](err)
	if ce == nil {
		return "no ContextError (" + provkit.StatusText(err) + ")"
	}
	return ce.GetCategory().String() + " (" + provkit.StatusText(err) + ")"
}

// checkRender renders what the plugin emitted, or one of its sections,
// then two payloads it never emitted, which it must answer without dying
// (CP-30, MAY).
func (r *run) checkRender(ctx context.Context) {
	s := r.c.Scenario("context/render", "Render", "CP-30")
	defer r.c.Add(s)
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	payload, version := []byte(nil), "v1"
	if em := r.cb.Emitted(); len(em) > 0 {
		payload, version = em[0].Payload, em[0].SchemaVersion
	} else {
		req := &contextv1.ContextRequest{SessionId: "conform-session-render", TurnId: turnID(9300, 1), TokenBudget: r.budget(), ModelTarget: target, WorkingDirectory: r.scratch}
		if resp, err := r.contribute(ctx, req); err == nil && len(resp.GetSections()) > 0 {
			payload, _ = proto.Marshal(resp.GetSections()[len(resp.GetSections())-1])
		}
	}
	if payload == nil {
		s.NotReached("Render answers a render tree", "the plugin emitted nothing and contributed no section to render", "CP-30")
		return
	}
	c, cancel := r.host.Call(ctx)
	defer cancel()
	resp, err := r.client().Render(c, &contextv1.RenderRequest{Payload: payload, SchemaVersion: version})
	r.secrets.SeeMsg("a Render answer", resp)
	r.seen("Render", err)
	switch {
	case provkit.Unimplemented(err):
		s.Skipf("the plugin does not implement Render (the kernel's generic rendering applies)")
	case err != nil:
		s.Fail("Render answers a render tree", r.host.Problem("Render", err), "CP-30")
	case resp.GetTree() == nil:
		s.Fail("Render answers a render tree", "Render answered no tree", "CP-30")
	default:
		s.Pass("Render answers a render tree", "CP-30")
	}
	// Payloads the plugin never emitted: any answer is its own business,
	// and a refusal must keep the taxonomy (CP-24..CP-26), but Render
	// must answer. An empty section is zero bytes on the wire, so a
	// provider that tells "no section" from a decoding error meets both.
	for _, f := range []struct {
		what    string
		payload []byte
	}{
		{"bytes that decode to no section", []byte{0xff, 0xff, 0xff, 0x01}},
		{"an empty section (zero bytes)", []byte{}},
	} {
		if reason := r.relaunch(ctx); reason != "" {
			s.Errorf("%s", reason)
			return
		}
		resp, err := r.render(ctx, &contextv1.RenderRequest{Payload: f.payload, SchemaVersion: version})
		r.secrets.SeeMsg("a Render answer", resp)
		r.seen("Render", err)
		switch b := r.host.Broken("Render", err); {
		case b == "":
		case status.Code(err) == codes.DeadlineExceeded:
			// A hang is the call timeout's word, never a verdict.
			s.Errorf("Render of %s: %s", f.what, b)
		default:
			s.Fail("Render answers a payload it did not emit (a tree or an error)", "Render of "+f.what+" got no answer: "+b, "CP-30")
		}
	}
}

func (r *run) render(ctx context.Context, req *contextv1.RenderRequest) (*contextv1.RenderResponse, error) {
	c, cancel := r.host.Call(ctx)
	defer cancel()
	return r.client().Render(c, req)
}

// checkSecrets gives CP-28 its verdict from the watch.
func (r *run) checkSecrets() {
	s := r.c.Scenario("context/secrets", "no secret echoed", "CP-28")
	defer r.c.Add(s)
	provkit.JudgeSecrets(s, r.secrets, r.cb, "CP-28")
}

// unjudged says why rules that apply only to some plugins were not
// reached.
func (r *run) unjudged() {
	provkit.Unjudged(r.c, "context/unjudged", "rules that apply to nothing the plugin did", map[string]string{
		"CP-24": "the plugin answered no error",
		"CP-25": "the plugin answered no error",
		"CP-26": "the plugin answered no error of category unknown",
	})
}
