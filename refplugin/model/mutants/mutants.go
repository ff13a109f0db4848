package mutants

import refmodel "github.com/agentconform/conform/refplugin/model"

// Mutant is the reference model provider with one fault.
type Mutant struct {
	Name   string
	Faults refmodel.Faults
	// Kills are the requirements that must fail (or err) on it, and the
	// only ones that may.
	Kills []string
}

// Variant is the reference with another correct reading: it must pass.
type Variant struct {
	Name     string
	Readings refmodel.Readings
}

type f = refmodel.Faults

// All are the mutants, in requirement order.
var All = []Mutant{
	{"describe-wrong-category", f{DescribeWrongCategory: true}, []string{"MP-02"}},
	{"capabilities-drift", f{CapabilitiesDrift: true}, []string{"MP-03"}},
	{"no-config-schema", f{NoConfigSchema: true}, []string{"MP-04"}},
	{"max-output-zero", f{MaxOutputZero: true}, []string{"MP-05"}},
	{"thinking-no-default", f{ThinkingNoDefault: true}, []string{"MP-06"}},
	{"caching-mode-none", f{CachingModeNone: true}, []string{"MP-07"}},
	{"no-pricing", f{NoPricing: true}, []string{"MP-08"}},
	{"tier-gap", f{TierGap: true}, []string{"MP-09"}},
	{"no-text", f{NoText: true}, []string{"MP-10"}},
	{"event-after-stop", f{EventAfterStop: true}, []string{"MP-11"}},
	{"hang-on-long-prompt", f{HangOnLongPrompt: true}, []string{"MP-33"}},
	{"stop-unspecified", f{StopUnspecified: true}, []string{"MP-12"}},
	{"ignore-stop-sequences", f{IgnoreStopSequences: true}, []string{"MP-13"}},
	{"empty-error-message", f{EmptyErrorMessage: true}, []string{"MP-14"}},
	{"unknown-code", f{UnknownCode: true}, []string{"MP-15"}},
	{"no-raw-detail", f{NoRawDetail: true}, []string{"MP-16"}},
	{"configure-accepts-missing", f{ConfigureAcceptsMissing: true}, []string{"MP-17"}},
	{"secret-in-vendor-error", f{SecretInVendorError: true}, []string{"MP-18"}},
	{"secret-in-log", f{SecretInLog: true}, []string{"MP-18"}},
	{"bad-tool-arguments", f{BadToolArguments: true}, []string{"MP-19"}},
	{"reject-tool-result", f{RejectToolResult: true}, []string{"MP-20"}},
	{"image-dropped", f{ImageDropped: true}, []string{"MP-21"}},
	{"document-dropped", f{DocumentDropped: true}, []string{"MP-22"}},
	{"thinking-from-free", f{ThinkingFromFree: true}, []string{"MP-23"}},
	{"reject-max-budget", f{RejectMaxBudget: true}, []string{"MP-24"}},
	{"reject-thinking-history", f{RejectThinkingHistory: true}, []string{"MP-25"}},
	{"breakpoints-on-implicit", f{BreakpointsOnImplicit: true}, []string{"MP-26"}},
	{"tool-choice-none-ignored", f{ToolChoiceNoneIgnored: true}, []string{"MP-27"}},
	{"parallel-undeclared", f{ParallelUndeclared: true}, []string{"MP-28"}},
	{"parallel-from-free", f{ParallelFromFree: true}, []string{"MP-28"}},
	{"render-fails", f{RenderFails: true}, []string{"MP-29"}},
	{"count-zero", f{CountZero: true}, []string{"MP-30"}},
	{"negative-usage", f{NegativeUsage: true}, []string{"MP-31"}},
	{"cache-usage-from-no-cache", f{CacheUsageFromNoCache: true}, []string{"MP-31"}},
	{"reasoning-in-output", f{ReasoningInOutput: true}, []string{"MP-32"}},
	{"crash-on-cancel", f{CrashOnCancel: true}, []string{"MP-33"}},
	{"unspecified-hook-point", f{UnspecifiedHookPoint: true}, []string{"MP-34"}},
	{"hooks-unserved", f{HooksUnserved: true}, []string{"MP-34"}},
}

// Variants are the legal variants.
var Variants = []Variant{
	{"status-refusals", refmodel.Readings{StatusRefusals: true}},
	{"slow-stream", refmodel.Readings{Slow: true}},
	{"log-flood", refmodel.Readings{LogFlood: true}},
}

// ByName returns the named mutant's faults and readings.
func ByName(name string) (refmodel.Faults, refmodel.Readings, bool) {
	for _, m := range All {
		if m.Name == name {
			return m.Faults, refmodel.Readings{}, true
		}
	}
	for _, v := range Variants {
		if v.Name == name {
			return refmodel.Faults{}, v.Readings, true
		}
	}
	return refmodel.Faults{}, refmodel.Readings{}, name == "reference"
}
