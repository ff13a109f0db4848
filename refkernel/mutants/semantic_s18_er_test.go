package mutants

import (
	"strings"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// A tool's own error result, lost on its way to the model (ER-11, PROTOCOL.md
// §7.4): loops often build the model's tool_result from an answered
// tool/invoke as "output → content" and flag an error only on the path
// where the invoke itself failed, the one they wrote the error handling
// for. The reference keeps the provider's is_error and error_category.
//
//   - the flag lost: a provider's own error result (is_error, its
//     error_category) reaches the model as plain content, a success; only
//     the results the kernel makes itself (a failed or crashed invoke, a
//     cancelled call, an output its output_schema rejects) stay errors;
//   - the category lost: the flag is kept, the provider's error_category
//     is not, and the kernel names no category for the call anywhere else
//     (no tool_error event: the call did not fail in transport).
//
// Both passed the ER-11 scenarios while they only asked that model request
// 2 hold "a result" for the call; the error-result and category checks of
// commit 873fc4e kill them.
func init() {
	register(
		Mutant{Name: "semantic/s18-tool-error-result-as-content", Targets: []string{"ER-11"},
			Breaks: "a tool's own error result (is_error with its error_category from tool/invoke) goes to the model as plain content, a success; only results the kernel makes itself (failed, crashed or cancelled invokes, rejected outputs) stay errors",
			Apply:  withProviderErrors(func(r *wire.ToolResult) { *r = wire.ToolResult{Content: r.Content} })},
		Mutant{Name: "semantic/s18-tool-error-category-dropped", Targets: []string{"ER-11"},
			Breaks: "a tool's own error result reaches the model with is_error but without the error_category the tool gave it; the kernel names no category for the call anywhere",
			Apply:  withProviderErrors(func(r *wire.ToolResult) { r.ErrorCategory = "" })},
	)
}

// withProviderErrors applies lose to the result of every data_source and
// resource call whose tool/invoke answered with an error result of its
// own, right after the steps that invoke them (9 and 12), before
// post-tool-call and the history see it.
func withProviderErrors(lose func(*wire.ToolResult)) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		after := func(t *loop.Turn) error {
			for _, c := range t.ToolCalls() {
				k := c.Kind()
				if (k == wire.KindDataSource || k == wire.KindResource) && c.Executed && c.Result != nil && c.Result.IsError && !kernelMadeResult(*c.Result) {
					lose(c.Result)
				}
			}
			return nil
		}
		p.Steps = wrapStep(p.Steps, loop.StepDataSources, after)
		p.Steps = wrapStep(p.Steps, loop.StepApply, after)
		return p
	}
}

// kernelMadeResult tells the error results the reference kernel makes for
// an executed call (refkernel/loop/errors.go, retry.StandardTools.Failed)
// from the ones a provider answered: the invoke failed or crashed, the
// call was cancelled, or the output broke the tool's output_schema.
func kernelMadeResult(r wire.ToolResult) bool {
	switch r.ErrorCategory {
	case wire.ToolErrProcessCrashed, wire.ToolErrCancelled:
		return true
	}
	for _, prefix := range []string{"the tool call failed: ", "the tool's output was rejected: ", "the tool provider crashed", "the tool call was cancelled"} {
		if strings.HasPrefix(r.Content, prefix) {
			return true
		}
	}
	return false
}
