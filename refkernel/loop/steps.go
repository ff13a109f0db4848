package loop

import "slices"

// Step is one named step of a turn. Run reads and writes the turn; an error
// ends the session (failed, or cancelled when the session was cancelled).
// Setting Turn.End skips the remaining steps.
type Step struct {
	Name string
	Run  func(t *Turn) error
}

// Step names, in the order of the algorithm.
const (
	StepContextAssemble   = "context-assemble"    // 1
	StepPreModelCall      = "pre-model-call"      // 2
	StepModelCall         = "model-call"          // 3-4
	StepPostModelResponse = "post-model-response" // 5
	StepDoneCheck         = "done-check"          // 6
	StepPreToolCall       = "pre-tool-call"       // 7
	StepSplit             = "split-by-kind"       // 8
	StepDataSources       = "data-sources"        // 9
	StepInteractive       = "interactive"         // 9b
	StepBuildPlan         = "build-plan"          // 10
	StepPlanReady         = "plan-ready"          // 11
	StepApply             = "apply"               // 12
	StepPostToolCall      = "post-tool-call"      // 13
	StepPostApply         = "post-apply"          // 14
	StepHistory           = "history"             // 15
	StepDoomLoop          = "doom-loop"           // 16
	StepBounds            = "bounds"              // 17
)

// DefaultSteps is the turn in the order the spec requires.
func DefaultSteps() []Step {
	return []Step{
		{StepContextAssemble, stepAssemble},
		{StepPreModelCall, stepPreModelCall},
		{StepModelCall, stepModelCall},
		{StepPostModelResponse, stepPostModelResponse},
		{StepDoneCheck, stepDoneCheck},
		{StepPreToolCall, stepPreToolCall},
		{StepSplit, stepSplit},
		{StepDataSources, stepDataSources},
		{StepInteractive, stepInteractive},
		{StepBuildPlan, stepBuildPlan},
		{StepPlanReady, stepPlanReady},
		{StepApply, stepApply},
		{StepPostToolCall, stepPostToolCall},
		{StepPostApply, stepPostApply},
		{StepHistory, stepHistory},
		{StepDoomLoop, stepDoomLoop},
		{StepBounds, stepBounds},
	}
}

// Swap returns a copy of steps with the two named steps exchanged.
func Swap(steps []Step, a, b string) []Step {
	out := slices.Clone(steps)
	i, j := index(out, a), index(out, b)
	out[i], out[j] = out[j], out[i]
	return out
}

// Move returns a copy of steps with the named step moved just before
// another one.
func Move(steps []Step, name, before string) []Step {
	out := slices.Clone(steps)
	i := index(out, name)
	s := out[i]
	out = slices.Delete(out, i, i+1)
	return slices.Insert(out, index(out, before), s)
}

// Without returns a copy of steps without the named step.
func Without(steps []Step, name string) []Step {
	out := slices.Clone(steps)
	i := index(out, name)
	return slices.Delete(out, i, i+1)
}

func index(steps []Step, name string) int {
	i := slices.IndexFunc(steps, func(s Step) bool { return s.Name == name })
	if i < 0 {
		panic("loop: no step named " + name)
	}
	return i
}
