package memoryprov

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	hookv1 "github.com/agentconform/conform/api/gen/pluggableharness/hook/v1"
	memoryv1 "github.com/agentconform/conform/api/gen/pluggableharness/memory/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/pluginconform/provkit"
)

// checkRatificationRefused calls ApproveRecord and RejectRecord on a
// provider that declares no ratification (MM-35).
func (r *run) checkRatificationRefused(ctx context.Context) {
	s := r.c.Scenario("memory/ratification", "ratification without support", "MM-35")
	defer r.c.Add(s)
	if r.caps.GetRatificationSupported() {
		s.NotReached("ApproveRecord and RejectRecord are refused", "the plugin declares ratification_supported true", "MM-35")
		return
	}
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	_, aerr := r.approve(ctx, "conform-any-record")
	_, rerr := r.reject(ctx, "conform-any-record")
	for _, c := range []struct {
		method string
		err    error
	}{{"ApproveRecord", aerr}, {"RejectRecord", rerr}} {
		step := c.method + " is refused with ratification_unsupported (or not served)"
		switch {
		case c.err == nil:
			s.Fail(step, c.method+" succeeded on a provider without ratification", "MM-35")
		case r.host.Broken(c.method, c.err) != "":
			s.Errorf("%s", r.host.Broken(c.method, c.err))
		case provkit.Unimplemented(c.err):
			s.Pass(c.method+" is not served (Unimplemented)", "MM-35")
		case !isCategory(c.err, memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_RATIFICATION_UNSUPPORTED):
			s.Fail(step, c.method+" failed with "+catText(c.err), "MM-35")
		default:
			s.Pass(step, "MM-35")
		}
	}
}

// checkRender renders a record (MM-44, MAY), and a payload that is no
// record, whose refusal feeds the taxonomy.
func (r *run) checkRender(ctx context.Context) {
	s := r.c.Scenario("memory/render", "Render", "MM-44")
	defer r.c.Add(s)
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	payload := []byte(nil)
	if em := r.cb.Emitted(); len(em) > 0 {
		payload = em[0].Payload
	}
	for _, rec := range r.alive {
		if payload == nil && rec.GetType() != 0 {
			payload, _ = proto.Marshal(rec)
		}
	}
	if payload == nil {
		payload, _ = proto.Marshal(&memoryv1.MemoryRecord{Id: "conform-render", Title: "conform", Content: []*contentv1.ContentBlock{textBlock("render me")}})
	}
	resp, err := call(r, ctx, "Render", r.client().Render, &memoryv1.RenderRequest{Payload: payload, SchemaVersion: "v1"})
	switch {
	case provkit.Unimplemented(err):
		s.Skipf("the plugin does not implement Render (the kernel's generic rendering applies)")
		return
	case err != nil:
		s.Fail("Render answers a render tree", r.host.Problem("Render", err), "MM-44")
	case resp.GetTree() == nil:
		s.Fail("Render answers a render tree", "Render answered no tree", "MM-44")
	default:
		s.Pass("Render answers a render tree", "MM-44")
	}
	// Payloads that are no record: one that does not decode, and the
	// empty one, which decodes to a record with nothing set. Either may be
	// refused (the taxonomy judges the error), but the plugin must answer
	// and live on.
	for _, bad := range []struct {
		what    string
		payload []byte
	}{{"a payload that does not decode", []byte{0xff, 0xff, 0xff, 0x01}}, {"an empty payload", []byte{}}} {
		_, err := call(r, ctx, "Render", r.client().Render, &memoryv1.RenderRequest{Payload: bad.payload, SchemaVersion: "v1"})
		s.Check("Render of "+bad.what+" answers a tree or an error", r.host.Broken("Render", err), "MM-44")
		if reason := r.relaunch(ctx); reason != "" {
			s.Errorf("%s", reason)
			return
		}
	}
}

// checkTool asks the same connection for ToolService (MM-45, MAY).
func (r *run) checkTool(ctx context.Context) {
	s := r.c.Scenario("memory/tool", "a tool provider in the same process", "MM-45")
	defer r.c.Add(s)
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	c, cancel := r.host.Call(ctx)
	defer cancel()
	resp, err := toolv1.NewToolServiceClient(r.host.Plugin.Conn).GetSchema(c, &toolv1.GetSchemaRequest{})
	r.secrets.SeeMsg("a GetSchema answer", resp)
	switch {
	case provkit.Unimplemented(err):
		s.Skipf("the plugin serves no ToolService beside MemoryService")
	case err != nil:
		s.Fail("ToolService answers GetSchema", r.host.Problem("GetSchema", err), "MM-45")
	default:
		var names []string
		for _, t := range resp.GetTools() {
			names = append(names, t.GetName())
		}
		s.Pass("ToolService answers GetSchema ("+strings.Join(names, ", ")+"); conform plugin checks it under the plugin profile", "MM-45")
	}
}

// checkHooks dispatches post_model_response and session_end, the
// autonomous write triggers (MM-41, SHOULD).
func (r *run) checkHooks(ctx context.Context) {
	s := r.c.Scenario("memory/hooks", "autonomous writes through hooks", "MM-41")
	defer r.c.Add(s)
	pts := r.caps.GetSupportedHookPoints()
	var missing []string
	for _, p := range []commonv1.HookPoint{commonv1.HookPoint_HOOK_POINT_POST_MODEL_RESPONSE, commonv1.HookPoint_HOOK_POINT_SESSION_END} {
		if !slices.Contains(pts, p) {
			missing = append(missing, p.String())
		}
	}
	if len(missing) > 0 {
		s.Fail("the provider subscribes to post_model_response and session_end", "supported_hook_points leaves out "+strings.Join(missing, " and "), "MM-41")
		return
	}
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	hc := hookv1.NewHookSubscriberServiceClient(r.host.Plugin.Conn)
	for _, p := range []*hookv1.HookPayload{
		{Payload: &hookv1.HookPayload_PostModelResponse{PostModelResponse: &hookv1.PostModelResponsePayload{Message: &contentv1.Message{Role: contentv1.Role_ROLE_ASSISTANT, Content: []*contentv1.ContentBlock{textBlock("remember: the release train leaves on Fridays")}}}}},
		{Payload: &hookv1.HookPayload_SessionEnd{SessionEnd: &hookv1.SessionEndPayload{SessionId: "conform-session-hooks"}}},
	} {
		c, cancel := r.host.Call(ctx)
		resp, err := hc.DispatchHook(c, &hookv1.DispatchHookRequest{Payload: p, Mode: hookv1.HookMode_HOOK_MODE_OBSERVE})
		cancel()
		r.secrets.SeeMsg("a DispatchHook answer", resp)
		step := fmt.Sprintf("DispatchHook at %T in observe mode is acknowledged", p.GetPayload())
		switch {
		case err != nil:
			s.Fail(step, r.host.Problem("DispatchHook", err), "MM-41")
		case resp.GetObserve() == nil:
			s.Fail(step, "the answer is not an observe acknowledgement", "MM-41")
		default:
			s.Pass(step, "MM-41")
		}
	}
}

// checkSurface gives MM-01 its verdict on the required methods.
func (r *run) checkSurface() {
	s := r.c.Scenario("memory/surface", "the required RPCs", "MM-01")
	defer r.c.Add(s)
	s.Check("Recall, Record, UpdateRecord, DeleteRecord, ListRecords and GetRecord are served", cond(len(r.unserved) > 0, "the plugin does not serve "+strings.Join(r.unserved, ", ")+" (Unimplemented)"), "MM-01")
}

var codeOfCat = map[memoryv1.MemoryErrorCategory]codes.Code{
	memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_NOT_FOUND:                codes.NotFound,
	memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_INVALID_TYPE:             codes.InvalidArgument,
	memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_INVALID_SCOPE:            codes.InvalidArgument,
	memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_RATIFICATION_UNSUPPORTED: codes.FailedPrecondition,
	memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_BUDGET_EXCEEDED:          codes.ResourceExhausted,
	memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_SOURCE_UNAVAILABLE:       codes.Unavailable,
	memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN:                  codes.Internal,
}

// checkTaxonomy judges every answered error (MM-38..MM-40).
func (r *run) checkTaxonomy() {
	s := r.c.Scenario("memory/errors", "the error taxonomy", "MM-38", "MM-39", "MM-40")
	defer r.c.Add(s)
	fails := map[string][]string{}
	held := map[string]int{}
	for _, e := range r.errs {
		me, st := provkit.Detail[*memoryv1.MemoryError](e.err)
		switch {
		case me == nil:
			fails["MM-38"] = append(fails["MM-38"], fmt.Sprintf("%s answered %s with no MemoryError detail", e.where, provkit.StatusText(e.err)))
		case me.GetCategory() == memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNSPECIFIED:
			fails["MM-38"] = append(fails["MM-38"], e.where+" answered a MemoryError of category unspecified")
		case me.GetCategory() != memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN && strings.TrimSpace(me.GetMessage()) == "":
			fails["MM-38"] = append(fails["MM-38"], fmt.Sprintf("%s answered a MemoryError of category %s with no message", e.where, me.GetCategory()))
		default:
			held["MM-38"]++
		}
		want, mapped := codeOfCat[me.GetCategory()]
		switch {
		case st.Code() == codes.Unknown:
			fails["MM-39"] = append(fails["MM-39"], e.where+" answered gRPC code Unknown, which no category travels on")
		case me != nil && mapped && st.Code() != want:
			fails["MM-39"] = append(fails["MM-39"], fmt.Sprintf("%s answered category %s on gRPC code %s, not %s", e.where, me.GetCategory(), st.Code(), want))
		case me != nil && mapped:
			held["MM-39"]++
		}
		if me.GetCategory() == memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN {
			if strings.TrimSpace(me.GetMessage()) == "" {
				fails["MM-40"] = append(fails["MM-40"], e.where+" answered a MemoryError of category unknown with no message")
			} else {
				held["MM-40"]++
			}
		}
	}
	steps := map[string]string{"MM-38": "every error carries a classified MemoryError", "MM-39": "every category travels on its gRPC code", "MM-40": "an unknown error carries detail"}
	for _, id := range []string{"MM-38", "MM-39", "MM-40"} {
		for i, f := range fails[id] {
			if i == 3 {
				s.Fail(steps[id], fmt.Sprintf("and %d more", len(fails[id])-3), id)
				break
			}
			s.Fail(steps[id], f, id)
		}
		if len(fails[id]) == 0 && held[id] > 0 {
			s.Pass(fmt.Sprintf("%s (%d %s)", steps[id], held[id], plural(held[id], "error", "errors")), id)
		}
	}
}

func (r *run) checkSecrets() {
	s := r.c.Scenario("memory/secrets", "no secret echoed", "MM-08")
	defer r.c.Add(s)
	provkit.JudgeSecrets(s, r.secrets, r.cb, "MM-08")
}

// unverifiable names the rows the wire cannot answer.
func (r *run) unverifiable() {
	s := r.c.Scenario("memory/unverifiable", "what MemoryService cannot show", "MM-30", "MM-42", "MM-43")
	defer r.c.Add(s)
	s.Unverifiable("a provider without a meaningful relevance leaves relevance_score unset", "whether a score is meaningful cannot be told from its value", "MM-30")
	s.Unverifiable("the memory.remember, memory.forget and memory.search tools are offered", "the tools are a tool provider's: conform plugin checks them under the plugin profile", "MM-42")
	s.Unverifiable("memory.remember checks for near matches before creating", "a tool's behaviour, not observable over MemoryService", "MM-43")
}

func (r *run) unjudged() {
	provkit.Unjudged(r.c, "memory/unjudged", "rules that apply to nothing the plugin did", map[string]string{
		"MM-38": "the plugin answered no error",
		"MM-39": "the plugin answered no error",
		"MM-40": "the plugin answered no error of category unknown",
	})
}
