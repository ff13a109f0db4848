package memoryprov

import (
	"context"
	"fmt"
	"maps"

	"google.golang.org/protobuf/types/known/structpb"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	memoryv1 "github.com/agentconform/conform/api/gen/pluggableharness/memory/v1"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/pluginconform/provkit"
)

func (r *run) prepare(ctx context.Context) string {
	s := r.c.Scenario("memory/launch", "launch, Describe and GetCapabilities", "MM-01", "MM-02")
	if _, err := r.host.Start(ctx); err != nil {
		reason := "the plugin could not be launched: " + err.Error()
		r.allInError(reason)
		return reason
	}
	r.checkDescribe(ctx, s)
	c, cancel := r.host.Call(ctx)
	resp, err := r.client().GetCapabilities(c, &memoryv1.GetCapabilitiesRequest{})
	cancel()
	r.secrets.SeeMsg("the GetCapabilities answer", resp)
	r.secrets.SeeErr("GetCapabilities", err)
	reason := ""
	switch {
	case provkit.Unimplemented(err):
		reason = "the plugin does not serve MemoryService (GetCapabilities answered Unimplemented): it may be a plugin of another category, or serve a plugin key other than memory"
	case err != nil:
		reason = r.host.Problem("GetCapabilities", err)
	case resp.GetCapabilities() == nil:
		reason = "GetCapabilities answered no capabilities"
	}
	if reason != "" {
		s.Fail("GetCapabilities answers", reason, "MM-01")
		r.c.Add(s)
		r.allInError(reason)
		return reason
	}
	s.Pass("the plugin completed the go-plugin handshake under plugin key memory and answers GetCapabilities", "MM-01")
	r.caps = resp.GetCapabilities()
	r.c.Add(s)
	r.checkDeclarations()
	return r.checkConfigure(ctx)
}

func (r *run) checkDescribe(ctx context.Context, s *kit.Scenario) {
	c, cancel := r.host.Call(ctx)
	defer cancel()
	resp, err := r.client().Describe(c, &memoryv1.DescribeRequest{})
	r.secrets.SeeMsg("the Describe answer", resp)
	r.seen("Describe", err)
	const step = "Describe answers the build's identity"
	if err != nil {
		s.Fail(step, r.host.Problem("Describe", err), "MM-02")
		return
	}
	s.Check(step, launch.IdentityProblems(resp.GetProducer(), commonv1.Category_CATEGORY_MEMORY), "MM-02")
}

func (r *run) checkDeclarations() {
	s := r.c.Scenario("memory/declare", "the declared capabilities", "MM-03", "MM-04", "MM-05", "MM-06")
	caps := r.caps
	s.Check(fmt.Sprintf("default_token_budget is declared (%d)", caps.GetDefaultTokenBudget()), cond(caps.GetDefaultTokenBudget() <= 0, fmt.Sprintf("default_token_budget is %d", caps.GetDefaultTokenBudget())), "MM-03")
	var types, scopes []string
	for _, t := range caps.GetSupportedTypes() {
		types = append(types, t.String())
	}
	for _, sc := range caps.GetSupportedScopes() {
		scopes = append(scopes, sc.String())
	}
	s.Check("supported_types are declared", declaredSet(types, "MEMORY_TYPE_UNSPECIFIED", memoryv1.MemoryType_name), "MM-04")
	s.Check("supported_scopes are declared", declaredSet(scopes, "MEMORY_SCOPE_UNSPECIFIED", memoryv1.MemoryScope_name), "MM-05")
	s.Check("GetCapabilities carries the config schema", cond(caps.GetConfigSchema() == nil, "config_schema is absent"), "MM-06")
	r.c.Add(s)

	d := r.c.Scenario("memory/declare", "declared hook points and slash commands", "MM-46")
	if msg, any := provkit.CheckDeclared(caps.GetSupportedHookPoints(), caps.GetSlashCommands()); !any {
		d.Skipf("the plugin declares no hook points and no slash commands")
	} else {
		d.Check("declared hook points are real and slash commands are named with a dispatch", msg, "MM-46")
	}
	r.c.Add(d)
}

// declaredSet says what is wrong with a declared enum set: empty, a value
// unspecified or unknown, or one twice.
func declaredSet(vals []string, unspecified string, names map[int32]string) string {
	if len(vals) == 0 {
		return "none is declared"
	}
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	seen := map[string]bool{}
	for _, v := range vals {
		switch {
		case v == unspecified || !known[v]:
			return v + " is not a real value"
		case seen[v]:
			return v + " is declared twice"
		}
		seen[v] = true
	}
	return ""
}

func (r *run) checkConfigure(ctx context.Context) string {
	s := r.c.Scenario("memory/configure", "Configure", "MM-01", "MM-07")
	defer r.c.Add(s)
	cfg, err := kit.BuildConfig(r.caps.GetConfigSchema(), r.opt.Config, r.opt.Rand, r.secrets)
	if err != nil {
		s.Errorf("%v", err)
		return err.Error()
	}
	r.config = cfg
	required := kit.Required(r.caps.GetConfigSchema())
	if len(required) == 0 {
		s.NotReached("Configure rejects a configuration without a required attribute", "the configuration schema declares no required attribute", "MM-07")
	}
	for _, name := range required {
		partial := maps.Clone(cfg)
		delete(partial, name)
		step := fmt.Sprintf("Configure without required attribute %q fails", name)
		err := r.configure(ctx, partial)
		switch {
		case err == nil:
			s.Fail(step, "Configure accepted it", "MM-07")
		case r.host.Broken("Configure", err) != "":
			s.Errorf("%s: %s", step, r.host.Broken("Configure", err))
			if _, err := r.host.Start(ctx); err != nil {
				return "the plugin could not be launched again: " + err.Error()
			}
		default:
			// The error's detail and code are the taxonomy's (MM-38, MM-39).
			s.Pass(step, "MM-07")
		}
	}
	if err := r.configure(ctx, cfg); err != nil {
		reason := "Configure rejected the configuration conform gave it (" + r.host.Problem("Configure", err) + "); give one the plugin accepts with --config FILE"
		s.Errorf("%s", reason)
		return reason
	}
	s.Pass("Configure accepts the configuration", "MM-01")
	return ""
}

func (r *run) configure(ctx context.Context, cfg map[string]any) error {
	st, err := structpb.NewStruct(cfg)
	if err != nil {
		return err
	}
	c, cancel := r.host.Call(ctx)
	defer cancel()
	_, err = r.client().Configure(c, &memoryv1.ConfigureRequest{Config: st})
	r.seen("Configure", err)
	return err
}
