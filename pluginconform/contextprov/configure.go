package contextprov

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"google.golang.org/protobuf/types/known/structpb"

	configv1 "github.com/agentconform/conform/api/gen/pluggableharness/config/v1"
	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	"github.com/agentconform/conform/pluginconform/kit"
)

// The markers conform hides in the source file it writes: neither may
// reach a section (CP-19).
const (
	commentMarker = "conform-comment-marker"
	frontMarker   = "conform-frontmatter-marker"
)

// sourceText is the file conform points an unset source attribute at:
// front matter, an HTML comment, and enough prose that small budgets
// force the provider to reduce it.
var sourceText = "---\nconform: " + frontMarker + "\n---\n# Project conventions\n\n<!-- " + commentMarker + " -->\n" +
	"Keep functions small and name them for what they do.\n" +
	"Every exported identifier has a doc comment that says why, not what.\n" +
	"Tests live beside the code they test and run in under a second each.\n" +
	"Errors say what happened and what to do next; no panics in library code.\n" +
	"Configuration comes from flags and files, never from the environment alone.\n" +
	"Logs are structured; secrets never reach them.\n" +
	"A change that alters behaviour changes a test first.\n" +
	"Dependencies are pinned and reviewed before they are added.\n"

var sourceName = regexp.MustCompile(`(?i)(path|glob|file|dir|source)`)

// sourceAttrs are the attributes naming a source path or glob.
func (r *run) sourceAttrs() []string {
	var out []string
	for _, a := range r.caps.GetConfigSchema().GetAttributes() {
		switch {
		case len(r.opt.SourceAttrs) > 0:
			if slices.Contains(r.opt.SourceAttrs, a.GetName()) {
				out = append(out, a.GetName())
			}
		case (a.GetType() == configv1.AttrType_ATTR_TYPE_STRING || a.GetType() == configv1.AttrType_ATTR_TYPE_LIST_STRING) && sourceName.MatchString(a.GetName()):
			out = append(out, a.GetName())
		}
	}
	return out
}

// checkConfigure builds the configuration, checks Configure without each
// required attribute (CP-07) and with each source pointed at nothing
// (CP-08), and configures the plugin; it returns why nothing more can be
// checked, or "".
func (r *run) checkConfigure(ctx context.Context) string {
	s := r.c.Scenario("context/configure", "Configure", "CP-01", "CP-07", "CP-08")
	defer r.c.Add(s)
	cfg, err := kit.BuildConfig(r.caps.GetConfigSchema(), r.opt.Config, r.opt.Rand, r.secrets)
	if err != nil {
		s.Errorf("%v", err)
		return err.Error()
	}
	srcs := r.sourceAttrs()
	for _, name := range srcs {
		if _, set := cfg[name]; set {
			continue
		}
		r.source = filepath.Join(r.scratch, "CONFORM.md")
		if err := os.WriteFile(r.source, []byte(sourceText), 0o644); err != nil {
			s.Errorf("writing the source file: %v", err)
			return err.Error()
		}
		cfg[name] = r.attrValue(name, r.source)
	}
	r.config = cfg
	required := kit.Required(r.caps.GetConfigSchema())
	if len(required) == 0 {
		s.NotReached("Configure rejects a configuration without a required attribute", "the configuration schema declares no required attribute", "CP-07")
	}
	for _, name := range required {
		partial := maps.Clone(cfg)
		delete(partial, name)
		if reason := r.rejected(ctx, s, partial, fmt.Sprintf("Configure without required attribute %q fails", name), "CP-07"); reason != "" {
			return reason
		}
	}
	if len(srcs) == 0 {
		s.NotReached("Configure rejects a source that resolves to nothing", "the configuration schema has no source path or glob attribute (name one with --source-attr)", "CP-08")
	}
	for _, name := range srcs {
		bad := maps.Clone(cfg)
		bad[name] = r.attrValue(name, filepath.Join(r.scratch, "no-such-dir", "*.md"))
		if reason := r.rejected(ctx, s, bad, fmt.Sprintf("Configure with source attribute %q pointed at nothing fails", name), "CP-08"); reason != "" {
			return reason
		}
	}
	if err := r.configure(ctx, cfg); err != nil {
		reason := "Configure rejected the configuration conform gave it (" + r.host.Problem("Configure", err) + "); give one the plugin accepts with --config FILE"
		s.Errorf("%s", reason)
		return reason
	}
	s.Pass("Configure accepts the configuration", "CP-01")
	return ""
}

// attrValue is a path as the attribute's type wants it.
func (r *run) attrValue(name, path string) any {
	for _, a := range r.caps.GetConfigSchema().GetAttributes() {
		if a.GetName() == name && a.GetType() == configv1.AttrType_ATTR_TYPE_LIST_STRING {
			return []any{path}
		}
	}
	return path
}

// rejected checks that Configure refuses cfg with a ContextError; it
// returns why the run cannot go on, or "".
func (r *run) rejected(ctx context.Context, s *kit.Scenario, cfg map[string]any, step, id string) string {
	err := r.configure(ctx, cfg)
	switch {
	case err == nil:
		s.Fail(step, "Configure accepted it", id)
	case r.host.Broken("Configure", err) != "":
		s.Errorf("%s: %s", step, r.host.Broken("Configure", err))
		if _, err := r.host.Start(ctx); err != nil {
			return "the plugin could not be launched again: " + err.Error()
		}
	default:
		// The error's detail and code are the taxonomy's (CP-24, CP-25).
		s.Pass(step, id)
	}
	return ""
}

func (r *run) configure(ctx context.Context, cfg map[string]any) error {
	st, err := structpb.NewStruct(cfg)
	if err != nil {
		return err
	}
	c, cancel := r.host.Call(ctx)
	defer cancel()
	_, err = r.client().Configure(c, &contextv1.ConfigureRequest{Config: st})
	r.seen("Configure", err)
	return err
}
