// Command genkit-kernel serves Genkit for Go (v1.4.0) as a conform kernel:
// genkit.Generate runs its own tool loop with ai.WithMaxTurns; its model is
// the harness's model/stream (model.go), its tools the harness's
// tool/invoke (tools.go), a model middleware is the hook points around a
// model call, its tool interrupts and resume are the human in the loop
// (plan.go), and its own spans go out as trace/span (trace.go). What the
// glue adds is listed in README.md.
package main

import (
	"context"
	"strings"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
)

type kernel struct{}

// Info declares no optional capability: Generate has no cost or
// wall-clock bound, soft limits, terminal tools, doom-loop detector,
// policy or sub-agents. Glue names the requirements the glue decides.
func (kernel) Info() kernelkit.Info {
	return kernelkit.Info{Name: "genkit-go-generate", Version: "1.4.0", Glue: glue}
}

func (kernel) Run(ctx context.Context, h *kernelkit.Host, p wire.RunParams) (wire.RunSessionResult, error) {
	r := &run{s: kernelkit.NewSession(h, p), refs: map[string][]string{}, items: map[string]wire.PlanItem{}, spans: map[string]string{}}
	ctx = traced(ctx, r)
	if err := r.s.Start(ctx); err != nil {
		return r.s.Finish(ctx, wire.StatusFailed, nil, err), nil
	}
	g := genkit.Init(ctx)
	m := genkit.DefineModel(g, "conform/model", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true}}, r.generate)
	opts := []ai.GenerateOption{ai.WithModel(m), ai.WithMiddleware(r.hooks)}
	var refs []ai.ToolRef
	byName := map[string]ai.Tool{}
	for _, t := range p.Config.Tools {
		tool := r.defineTool(g, t)
		refs = append(refs, tool)
		byName[t.Name] = tool
	}
	if len(refs) > 0 {
		opts = append(opts, ai.WithTools(refs...)) // once: Generate refuses a second WithTools
	}
	if n := p.Config.Bounds.MaxTurns; n != nil {
		opts = append(opts, ai.WithMaxTurns(*n)) // Generate's own cap; absent: its default, 5
	}
	resp, err := genkit.Generate(ctx, g, append(opts, ai.WithPrompt(p.Prompt))...)
	// Genkit's human in the loop (plan.go): while the loop stopped at
	// interrupts, ask the frontend and resume with the history and the
	// answers, as samples/intermediate-interrupts does.
	for err == nil && resp.FinishReason == ai.FinishReasonInterrupted {
		var restarts []*ai.Part
		if restarts, err = r.answer(ctx, resp.Interrupts(), byName); err != nil {
			break
		}
		resp, err = genkit.Generate(ctx, g, append(opts, ai.WithMessages(resp.History()...), ai.WithToolRestarts(restarts...))...)
	}
	switch {
	case ctx.Err() != nil:
		return r.s.Finish(ctx, wire.StatusCancelled, nil, nil), nil
	case err != nil && strings.Contains(err.Error(), "exceeded maximum tool call iterations"):
		return r.s.Finish(ctx, wire.StatusErrorMaxTurns, nil, err), nil // ai/generate.go:388
	case err != nil:
		return r.s.Finish(ctx, wire.StatusFailed, nil, err), nil
	}
	final := wire.Message{Role: "assistant", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: resp.Text()}}}
	return r.s.Finish(ctx, wire.StatusCompleted, &final, nil), nil
}

func main() {
	exportSpans()
	kernelkit.Main(kernel{})
}
