package pluginconform

import (
	"context"
	"fmt"
	"sort"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/spec"
)

// prepare launches the plugin, asks who it is and what it declares, checks
// the declarations and configures it. It returns why nothing more can be
// checked, or "".
func (r *run) prepare(ctx context.Context) string {
	s := r.rec.Scenario("plugin/launch", "launch, Describe and GetSchema", "PL-01", "PL-02", "PL-03")
	if _, err := r.start(ctx); err != nil {
		reason := "the plugin could not be launched: " + err.Error()
		r.allInError(reason)
		return reason
	}
	s.Pass("the plugin completed the go-plugin handshake and dispensed plugin key tool", "PL-01")
	r.checkDescribe(ctx, s)
	if reason := r.checkGetSchema(ctx, s); reason != "" {
		s.Errorf("%s", reason)
		r.rec.Add(s)
		return reason
	}
	r.rec.Add(s)
	r.checkDeclarations()
	r.unjudged("plugin/declare", "declarations that apply to no operation", map[string]string{
		"PL-09": "every declared operation is interactive",
		"PL-10": "no interactive operation is declared",
		"PL-11": "no operation declares key_fields",
	})
	return r.checkConfigure(ctx)
}

// allInError records one erroring scenario naming every requirement, so
// each gets the reason.
func (r *run) allInError(reason string) {
	s := r.rec.Scenario("plugin/launch", "launch the plugin")
	s.Res.Requirements = append(s.Res.Requirements, kit.ProfileIDs(spec.ProfilePlugin)...)
	s.Errorf("%s", reason)
	r.rec.Add(s)
}

func (r *run) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.opt.CallTimeout)
}

// rpcProblem explains a failed unary call: the plugin died, hung, or
// answered an error; "" for no error.
func (r *run) rpcProblem(method string, err error) string {
	if err == nil {
		return ""
	}
	if d := r.died(err); d != "" {
		return method + ": " + d
	}
	st, _ := status.FromError(err)
	if st.Code() == codes.DeadlineExceeded {
		return fmt.Sprintf("%s did not answer within %v", method, r.opt.CallTimeout)
	}
	return fmt.Sprintf("%s answered gRPC status %s: %s", method, st.Code(), clip(st.Message(), 300))
}

func (r *run) describe() *commonv1.ProducerRef {
	if r.plugin == nil || r.plugin.Exited() {
		return nil
	}
	ctx, cancel := r.call(context.Background())
	defer cancel()
	resp, err := r.plugin.Tool.Describe(ctx, &toolv1.DescribeRequest{})
	if err != nil {
		return nil
	}
	return resp.GetProducer()
}

func (r *run) checkDescribe(ctx context.Context, s *kit.Scenario) {
	c, cancel := r.call(ctx)
	defer cancel()
	resp, err := r.plugin.Tool.Describe(c, &toolv1.DescribeRequest{})
	r.secrets.SeeMsg("the Describe answer", resp)
	r.secrets.SeeErr("the Describe error", err)
	const step = "Describe answers the build's identity"
	if err != nil {
		s.Fail(step, r.rpcProblem("Describe", err), "PL-02")
		return
	}
	if bad := launch.IdentityProblems(resp.GetProducer(), commonv1.Category_CATEGORY_TOOL); bad != "" {
		s.Fail(step, bad, "PL-02")
		return
	}
	s.Pass(step, "PL-02")
}

// checkGetSchema asks three times: the answers must be equal (PL-03).
func (r *run) checkGetSchema(ctx context.Context, s *kit.Scenario) string {
	var first *toolv1.GetSchemaResponse
	for i := 1; i <= 3; i++ {
		c, cancel := r.call(ctx)
		resp, err := r.plugin.Tool.GetSchema(c, &toolv1.GetSchemaRequest{})
		cancel()
		r.secrets.SeeMsg("the GetSchema answer", resp)
		r.secrets.SeeErr("the GetSchema error", err)
		if err != nil {
			s.Fail("GetSchema answers", r.rpcProblem("GetSchema", err), "PL-01")
			return "GetSchema failed, so nothing the plugin declares can be checked: " + r.rpcProblem("GetSchema", err)
		}
		if first == nil {
			first = resp
			s.Pass("GetSchema answers", "PL-01")
			continue
		}
		if !proto.Equal(first, resp) {
			s.Fail("GetSchema answers the same every time", fmt.Sprintf("answer %d differs from the first: %s", i, firstDiff(first, resp)), "PL-03")
			r.schema = first
			return ""
		}
	}
	s.Pass("GetSchema answers the same every time (3 calls)", "PL-03")
	r.schema = first
	return ""
}

// firstDiff names the first operation whose declaration differs.
func firstDiff(a, b *toolv1.GetSchemaResponse) string {
	if len(a.GetTools()) != len(b.GetTools()) {
		return fmt.Sprintf("%d operations, then %d", len(a.GetTools()), len(b.GetTools()))
	}
	for i := range a.GetTools() {
		if !proto.Equal(a.GetTools()[i], b.GetTools()[i]) {
			return fmt.Sprintf("operation %q is declared differently", a.GetTools()[i].GetName())
		}
	}
	return "the configuration schema, slash commands or hook points differ"
}

func clip(s string, n int) string { return kit.Clip(s, n) }

// unjudged records, in a scenario of its own, why each requirement that no
// check judged was not reached; nothing when every one was.
func (r *run) unjudged(file, name string, why map[string]string) {
	var s *kit.Scenario
	for _, id := range sortedIDs(why) {
		if r.rec.Judged[id] {
			continue
		}
		if s == nil {
			s = r.rec.Scenario(file, name)
		}
		s.NotReached("the rule applies to something the plugin declared or did", why[id], id)
	}
	if s != nil {
		r.rec.Add(s)
	}
}

func sortedIDs(m map[string]string) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
