package contextprov

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/pluginconform/provkit"
)

// prepare launches the plugin, asks who it is and what it declares, checks
// the declarations and configures it; it returns why nothing more can be
// checked, or "".
func (r *run) prepare(ctx context.Context) string {
	s := r.c.Scenario("context/launch", "launch, Describe and GetCapabilities", "CP-01", "CP-02", "CP-05")
	if _, err := r.host.Start(ctx); err != nil {
		reason := "the plugin could not be launched: " + err.Error()
		r.allInError(reason)
		return reason
	}
	r.checkDescribe(ctx, s)
	caps, reason := r.getCapabilities(ctx)
	if reason != "" {
		s.Fail("GetCapabilities answers", reason, "CP-01")
		r.c.Add(s)
		r.allInError(reason)
		return reason
	}
	s.Pass("the plugin completed the go-plugin handshake under plugin key context and answers GetCapabilities", "CP-01")
	r.caps = caps
	for i := 2; i <= 3; i++ {
		again, reason := r.getCapabilities(ctx)
		if reason != "" {
			s.Errorf("GetCapabilities call %d: %s", i, reason)
			break
		}
		if !proto.Equal(caps, again) {
			s.Fail("GetCapabilities answers the same every time", fmt.Sprintf("answer %d differs from the first", i), "CP-05")
			break
		}
	}
	r.c.Add(s)
	r.checkDeclarations()
	return r.checkConfigure(ctx)
}

// getCapabilities asks once; the reason says why it gave nothing.
func (r *run) getCapabilities(ctx context.Context) (*contextv1.ContextCapabilities, string) {
	c, cancel := r.host.Call(ctx)
	defer cancel()
	resp, err := r.client().GetCapabilities(c, &contextv1.GetCapabilitiesRequest{})
	r.secrets.SeeMsg("the GetCapabilities answer", resp)
	r.seen("GetCapabilities", err)
	switch {
	case provkit.Unimplemented(err):
		return nil, "the plugin does not serve ContextService (GetCapabilities answered Unimplemented): it may be a plugin of another category, or serve a plugin key other than context"
	case err != nil:
		return nil, r.host.Problem("GetCapabilities", err)
	case resp.GetCapabilities() == nil:
		return nil, "GetCapabilities answered no capabilities"
	}
	return resp.GetCapabilities(), ""
}

func (r *run) checkDescribe(ctx context.Context, s *kit.Scenario) {
	c, cancel := r.host.Call(ctx)
	defer cancel()
	resp, err := r.client().Describe(c, &contextv1.DescribeRequest{})
	r.secrets.SeeMsg("the Describe answer", resp)
	r.seen("Describe", err)
	const step = "Describe answers the build's identity"
	if err != nil {
		s.Fail(step, r.host.Problem("Describe", err), "CP-02")
		return
	}
	if bad := launch.IdentityProblems(resp.GetProducer(), commonv1.Category_CATEGORY_CONTEXT); bad != "" {
		s.Fail(step, bad, "CP-02")
		return
	}
	s.Pass(step, "CP-02")
}

// checkDeclarations judges what GetCapabilities declares.
func (r *run) checkDeclarations() {
	s := r.c.Scenario("context/declare", "the declared capabilities", "CP-03", "CP-04", "CP-06")
	caps := r.caps
	if b := caps.GetDefaultTokenBudget(); b <= 0 {
		s.Fail("default_token_budget is declared", fmt.Sprintf("default_token_budget is %d", b), "CP-03")
	} else {
		s.Pass(fmt.Sprintf("default_token_budget is declared (%d)", b), "CP-03")
	}
	switch caps.GetStability() {
	case contentv1.Stability_STABILITY_STATIC, contentv1.Stability_STABILITY_DYNAMIC:
		s.Pass("stability is declared ("+caps.GetStability().String()+")", "CP-04")
	default:
		s.Fail("stability is declared", "stability is "+caps.GetStability().String(), "CP-04")
	}
	if caps.GetConfigSchema() == nil {
		s.Fail("GetCapabilities carries the config schema", "config_schema is absent", "CP-06")
	} else {
		s.Pass("GetCapabilities carries the config schema", "CP-06")
	}
	r.c.Add(s)

	d := r.c.Scenario("context/declare", "declared hook points and slash commands", "CP-31")
	if msg, any := provkit.CheckDeclared(caps.GetSupportedHookPoints(), caps.GetSlashCommands()); !any {
		d.Skipf("the plugin declares no hook points and no slash commands")
	} else {
		d.Check("declared hook points are real and slash commands are named with a dispatch", msg, "CP-31")
	}
	r.c.Add(d)
}
