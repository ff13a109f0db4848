package pluginconform

import (
	"context"
	"fmt"
	"maps"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/launch"
)

// checkConfigure builds the configuration (the user's, with a canary for
// each required secret left out), checks that leaving out each required
// attribute is rejected at once with a ToolError (PL-23), and configures
// the plugin. It returns why nothing more can be checked, or "".
func (r *run) checkConfigure(ctx context.Context) string {
	s := r.rec.Scenario("plugin/configure", "Configure", "PL-01", "PL-23")
	defer r.rec.Add(s)
	cfg, err := kit.BuildConfig(r.schema.GetConfigSchema(), r.opt.Config, r.opt.Rand, r.secrets)
	if err != nil {
		s.Errorf("%v", err)
		return err.Error()
	}
	r.config = cfg
	required := kit.Required(r.schema.GetConfigSchema())
	if len(required) == 0 {
		s.NotReached("Configure rejects a configuration without a required attribute", "the configuration schema declares no required attribute", "PL-23")
	}
	for _, name := range required {
		partial := maps.Clone(cfg)
		delete(partial, name)
		step := fmt.Sprintf("Configure without required attribute %q fails with a ToolError", name)
		err := r.configure(ctx, r.plugin, partial)
		switch {
		case err == nil:
			s.Fail(step, fmt.Sprintf("Configure accepted a configuration without required attribute %q", name), "PL-23")
		case r.died(err) != "":
			s.Errorf("Configure without %q: %s", name, r.died(err))
			if reason := r.restartBare(ctx); reason != "" {
				return reason
			}
		default:
			s.Check(step, configureErrorShape(err), "PL-23")
		}
	}
	if err := r.configure(ctx, r.plugin, cfg); err != nil {
		reason := "Configure rejected the configuration conform gave it (" + r.rpcProblem("Configure", err) + "); give one the plugin accepts with --config FILE"
		s.Errorf("%s", reason)
		return reason
	}
	s.Pass("Configure accepts the configuration", "PL-01")
	return ""
}

// restartBare relaunches a plugin that died during Configure, without
// configuring it.
func (r *run) restartBare(ctx context.Context) string {
	if _, err := r.start(ctx); err != nil {
		return "the plugin could not be launched again: " + err.Error()
	}
	return ""
}

// configureErrorShape says what is wrong with a Configure rejection: it
// must be a status carrying a ToolError with a category and a message.
func configureErrorShape(err error) string {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if te, ok := d.(*toolv1.ToolError); ok {
			switch {
			case te.GetCategory() == toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_UNSPECIFIED:
				return "the ToolError in the status has no category"
			case te.GetMessage() == "":
				return "the ToolError in the status has no message"
			}
			return ""
		}
	}
	return fmt.Sprintf("Configure failed with gRPC status %s %q but its details carry no ToolError", st.Code(), clip(st.Message(), 200))
}

func (r *run) configure(ctx context.Context, p *launch.Plugin, cfg map[string]any) error {
	st, err := structpb.NewStruct(cfg)
	if err != nil {
		return err
	}
	c, cancel := r.call(ctx)
	defer cancel()
	_, err = p.Tool.Configure(c, &toolv1.ConfigureRequest{Config: st})
	r.secrets.SeeErr("a Configure error", err)
	return err
}
