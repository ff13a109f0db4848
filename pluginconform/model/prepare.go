package model

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/spec"
)

// prepare launches the plugin, asks who it is and what it serves, checks
// the declarations and configures it; it returns why nothing more can be
// checked, or "".
func (r *run) prepare(ctx context.Context) string {
	s := r.rec.Scenario("model/launch", "launch, Describe and GetCapabilities", "MP-01", "MP-02", "MP-03")
	if err := r.start(ctx); err != nil {
		reason := "the plugin could not be launched: " + err.Error()
		r.allInError(reason)
		return reason
	}
	caps, err := r.capabilities(ctx)
	if status.Code(err) == codes.Unimplemented {
		reason := fmt.Sprintf("the plugin does not serve %s (GetCapabilities is unimplemented), so it is no model provider under plugin key %q", Service, "model")
		if served, serr := category.Served(ctx, r.plugin.Conn, r.opt.CallTimeout); serr == nil {
			reason += "; it serves " + strings.Join(served, ", ")
		}
		r.allInError(reason)
		return reason
	}
	if err != nil {
		reason := r.problem("GetCapabilities", err)
		r.allInError(reason)
		return reason
	}
	s.Pass("the plugin completed the go-plugin handshake, dispensed plugin key model and answered GetCapabilities", "MP-01")
	r.caps = caps
	r.checkDescribe(ctx, s)
	same := true
	for i := 0; i < 2; i++ {
		again, err := r.capabilities(ctx)
		if err != nil {
			s.Fail("GetCapabilities answers again", r.problem("GetCapabilities", err), "MP-03")
			same = false
			break
		}
		if !proto.Equal(again, caps) {
			s.Fail("GetCapabilities gives the same answer every time", fmt.Sprintf("answer %d differs from the first", i+2), "MP-03")
			same = false
			break
		}
	}
	if same {
		s.Pass("GetCapabilities gave the same answer three times", "MP-03")
	}
	s.Unverifiable("GetCapabilities makes no vendor call", "a network call inside the plugin is not on the plugin's wire", "MP-03")
	r.rec.Add(s)
	r.checkDeclarations()
	return r.checkConfigure(ctx)
}

func (r *run) capabilities(ctx context.Context) (*modelv1.Capabilities, error) {
	c, cancel := r.call(ctx)
	defer cancel()
	resp, err := r.client.GetCapabilities(c, &modelv1.GetCapabilitiesRequest{})
	r.secrets.SeeMsg("the GetCapabilities answer", resp)
	r.secrets.SeeErr("a GetCapabilities error", err)
	if err != nil {
		return nil, err
	}
	return resp.GetCapabilities(), nil
}

// allInError records one erroring scenario naming every requirement.
func (r *run) allInError(reason string) {
	s := r.rec.Scenario("model/launch", "launch the plugin")
	s.Res.Requirements = append(s.Res.Requirements, kit.ProfileIDs(spec.ProfileModelProvider)...)
	s.Errorf("%s", reason)
	r.rec.Add(s)
}

func (r *run) checkDescribe(ctx context.Context, s *kit.Scenario) {
	c, cancel := r.call(ctx)
	defer cancel()
	resp, err := r.client.Describe(c, &modelv1.DescribeRequest{})
	r.secrets.SeeMsg("the Describe answer", resp)
	if err != nil {
		s.Fail("Describe answers", r.problem("Describe", err), "MP-02")
		return
	}
	s.Check("Describe names the plugin, its version, the model category and the handshake's protocol version", launch.IdentityProblems(resp.GetProducer(), commonv1.Category_CATEGORY_MODEL), "MP-02")
}

// describe is the plugin's identity for the report, nil when unknown.
func (r *run) describe() *commonv1.ProducerRef {
	if r.plugin == nil || r.plugin.Exited() {
		return nil
	}
	c, cancel := r.call(context.Background())
	defer cancel()
	resp, err := r.client.Describe(c, &modelv1.DescribeRequest{})
	if err != nil {
		return nil
	}
	return resp.GetProducer()
}

// checkConfigure builds the configuration, checks that leaving out each
// required attribute is rejected at once with a ModelError (MP-17), and
// configures the plugin.
func (r *run) checkConfigure(ctx context.Context) string {
	s := r.rec.Scenario("model/configure", "Configure", "MP-01", "MP-17")
	defer r.rec.Add(s)
	schema := r.caps.GetConfigSchema()
	cfg, err := kit.BuildConfig(schema, r.opt.Config, r.opt.Rand, r.secrets)
	if err != nil {
		s.Errorf("%v", err)
		return err.Error()
	}
	r.config = cfg
	required := kit.Required(schema)
	if len(required) == 0 {
		s.NotReached("Configure rejects a configuration without a required attribute", "the configuration schema declares no required attribute", "MP-17")
	}
	for _, name := range required {
		partial := maps.Clone(cfg)
		delete(partial, name)
		step := fmt.Sprintf("Configure without required attribute %q fails at once with a ModelError", name)
		err := r.configure(ctx, partial)
		switch {
		case err == nil:
			s.Fail(step, fmt.Sprintf("Configure accepted a configuration without required attribute %q", name), "MP-17")
		case r.died(err) != "":
			s.Errorf("Configure without %q: %s", name, r.died(err))
			if e := r.start(ctx); e != nil {
				return "the plugin could not be launched again: " + e.Error()
			}
		default:
			// The status's own shape is MP-14's, MP-15's and MP-16's; MP-17
			// asks that it is a ModelError-carrying refusal at all.
			v := kit.Verdicts{}
			judgeStatus(err, v)
			record(s, fmt.Sprintf("the refusal of a configuration without %q", name), v)
			msg := ""
			if statusModelError(err) == nil {
				msg = fmt.Sprintf("Configure refused with gRPC status %s and no ModelError in its details", status.Code(err))
			}
			s.Check(step, msg, "MP-17")
		}
	}
	if err := r.configure(ctx, cfg); err != nil {
		reason := "Configure rejected the configuration conform gave it (" + r.problem("Configure", err) + "); give one the plugin accepts with --config FILE"
		s.Errorf("%s", reason)
		return reason
	}
	s.Pass("Configure accepts the configuration", "MP-01")
	return ""
}

func (r *run) configure(ctx context.Context, cfg map[string]any) error {
	st, err := structpb.NewStruct(cfg)
	if err != nil {
		return err
	}
	c, cancel := r.call(ctx)
	defer cancel()
	_, err = r.client.Configure(c, &modelv1.ConfigureRequest{Config: st})
	r.secrets.SeeErr("a Configure error", err)
	return err
}

// unjudged records why each requirement that no check judged was not
// reached, so the report names it.
func (r *run) unjudged() {
	why := map[string]string{
		"MP-19": "no served model called a tool (none supports tool use, or none could be made to call one)",
		"MP-20": "no served model supports tool use",
		"MP-25": "no served model supports thinking",
		"MP-28": "no served model supports tool use",
		"MP-32": "no answer of text alone reported 32 or more reasoning tokens with CountTokens answering",
		"MP-16": "the plugin sent no error to judge",
		"MP-14": "the plugin sent no error to judge",
	}
	var s *kit.Scenario
	for _, n := range slices.Sorted(maps.Keys(why)) {
		if r.rec.Judged[n] {
			continue
		}
		if s == nil {
			s = r.rec.Scenario("model/unjudged", "requirements no check reached")
		}
		s.NotReached(n+" has a verdict", why[n], n)
	}
	if s != nil {
		r.rec.Add(s)
	}
}
