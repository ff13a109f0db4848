package pluginconform

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	renderv1 "github.com/agentconform/conform/api/gen/pluggableharness/render/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/pluginconform/schemagen"
)

// previewTries is how many generated calls are previewed per operation.
const previewTries = 5

// checkPreview previews generated calls (PL-25): a tree that says
// something, and no change to the working directory. An operation whose
// Preview answers UNIMPLEMENTED has none, which the MAY allows.
func (r *run) checkPreview(ctx context.Context, op *toolv1.ToolSchema) {
	s := r.rec.Scenario("plugin/preview/"+op.GetName(), "Preview of "+op.GetName(), "PL-25")
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		r.rec.Add(s)
		return
	}
	gen := schemagen.Args(op.GetInputSchema())
	unimplemented := 0
	for try := 1; try <= previewTries; try++ {
		args := gen.Example(int(r.stats.Seed%1e6) + 100 + try)
		// Each Preview gets an empty working directory of its own, and only
		// that folder is fingerprinted: the shared one may still be changed
		// by an earlier call the plugin let run on after its cancel (on a
		// busy machine, during a later Preview), which is PL-22's to judge.
		wd, err := os.MkdirTemp(r.wd, ".conform-preview-")
		if err != nil {
			s.Errorf("making the Preview's working directory: %v", err)
			break
		}
		defer os.RemoveAll(wd)
		call, err := r.toolCallIn(op.GetName(), args, wd)
		if err != nil {
			s.Errorf("%v", err)
			break
		}
		before, err := snapshot(wd)
		if err != nil {
			s.Errorf("reading the working directory: %v", err)
			break
		}
		c, cancel := r.call(ctx)
		resp, err := r.plugin.Tool.Preview(c, &toolv1.PreviewRequest{Call: call})
		cancel()
		r.secrets.SeeMsg("a Preview answer", resp)
		r.secrets.SeeErr("a Preview error", err)
		if status.Code(err) == codes.Unimplemented {
			unimplemented++
			continue
		}
		step := "Preview of " + op.GetName() + " returns a tree and changes nothing"
		if err != nil {
			if d := r.died(err); d != "" {
				s.Errorf("Preview of %s: %s", op.GetName(), d)
				break
			}
			if status.Code(err) == codes.DeadlineExceeded {
				// No answer is a hang, not an answer that breaks PL-25.
				s.Errorf("Preview of %s with %s: %s", op.GetName(), clip(jsonText(args), 300), r.rpcProblem("Preview", err))
				break
			}
			s.Fail(step, fmt.Sprintf("Preview of %s with %s: %s", op.GetName(), clip(jsonText(args), 300), r.rpcProblem("Preview", err)), "PL-25")
			continue
		}
		after, err := snapshot(wd)
		if err != nil {
			s.Errorf("reading the working directory: %v", err)
			break
		}
		switch {
		case emptyTree(resp.GetPreview()):
			s.Fail(step, fmt.Sprintf("Preview of %s with %s returned an empty tree", op.GetName(), clip(jsonText(args), 300)), "PL-25")
		case before != after:
			s.Fail(step, fmt.Sprintf("Preview of %s with %s changed the working directory", op.GetName(), clip(jsonText(args), 300)), "PL-25")
		default:
			s.Pass(step, "PL-25")
		}
	}
	if unimplemented == previewTries {
		s.Skipf("Preview of %s answers UNIMPLEMENTED (Preview is a MAY)", op.GetName())
	}
	r.rec.Add(s)
}

func emptyTree(t *renderv1.RenderTree) bool {
	return t == nil || t.GetRoot() == nil || t.GetRoot().GetNode() == nil
}

// snapshot fingerprints a folder: every path, size and content.
func snapshot(dir string) (string, error) {
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			lines = append(lines, rel+"/")
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s %x", rel, sha256.Sum256(b)))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n"), err
}

// checkRender renders what the plugin emitted through the kernel callback
// (PL-26).
func (r *run) checkRender(ctx context.Context) {
	s := r.rec.Scenario("plugin/render", "Render of emitted payloads", "PL-26")
	defer r.rec.Add(s)
	emitted := r.cb.Emitted()
	if len(emitted) == 0 {
		s.NotReached("Render returns a tree for an emitted payload", "the plugin emitted nothing through the kernel callback service to render", "PL-26")
		return
	}
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	if len(emitted) > 5 {
		emitted = emitted[:5]
	}
	unimplemented := 0
	for _, e := range emitted {
		c, cancel := r.call(ctx)
		resp, err := r.plugin.Tool.Render(c, &toolv1.RenderRequest{Payload: e.Payload, SchemaVersion: e.SchemaVersion})
		cancel()
		r.secrets.SeeMsg("a Render answer", resp)
		r.secrets.SeeErr("a Render error", err)
		step := "Render returns a tree for a payload the plugin emitted"
		switch {
		case status.Code(err) == codes.Unimplemented:
			unimplemented++
		case err != nil:
			if d := r.died(err); d != "" {
				s.Errorf("Render: %s", d)
				return
			}
			s.Fail(step, fmt.Sprintf("Render of a %s payload (schema version %q): %s", e.Kind, e.SchemaVersion, r.rpcProblem("Render", err)), "PL-26")
		case emptyTree(resp.GetTree()):
			s.Fail(step, fmt.Sprintf("Render of a %s payload returned an empty tree", e.Kind), "PL-26")
		default:
			s.Pass(step, "PL-26")
		}
	}
	if unimplemented == len(emitted) {
		s.Skipf("Render answers UNIMPLEMENTED (Render is a MAY)")
	}
}
