package mutants

import "github.com/agentconform/conform/refplugin/refcontext"

// Mutant is the reference with one fault; Kills is what must fail (and
// nothing else may), Survives why conform cannot catch it.
type Mutant struct {
	Name     string
	Faults   refcontext.Faults
	Kills    []string
	Survives string
}

// Variants are legal readings that must pass.
var Variants = []Mutant{
	{Name: "reference", Faults: refcontext.Faults{}},
	{Name: "compactor", Faults: refcontext.Faults{Compactor: true}},
}

type F = refcontext.Faults

// All are the mutants, in requirement order.
var All = []Mutant{
	{Name: "describe-wrong-category", Faults: F{DescribeWrongCategory: true}, Kills: []string{"CP-02"}},
	{Name: "no-default-budget", Faults: F{NoDefaultBudget: true}, Kills: []string{"CP-03"}},
	{Name: "stability-unspecified", Faults: F{StabilityUnspecified: true}, Kills: []string{"CP-04"}},
	{Name: "capabilities-drift", Faults: F{CapabilitiesDrift: true}, Kills: []string{"CP-05"}},
	{Name: "no-config-schema", Faults: F{NoConfigSchema: true}, Kills: []string{"CP-06"}},
	{Name: "accepts-missing", Faults: F{AcceptsMissing: true}, Kills: []string{"CP-07"}},
	{Name: "accepts-missing-source", Faults: F{AcceptsMissingSource: true}, Kills: []string{"CP-08"}},
	{Name: "delta", Faults: F{Delta: true}, Kills: []string{"CP-09"}},
	{Name: "mutates-prior", Faults: F{MutatesPrior: true}, Kills: []string{"CP-10"}},
	{Name: "no-provider-name", Faults: F{NoProviderName: true}, Kills: []string{"CP-11"}},
	{Name: "no-label", Faults: F{NoLabel: true}, Kills: []string{"CP-12"}},
	{Name: "image-block", Faults: F{ImageBlock: true}, Kills: []string{"CP-13"}},
	{Name: "ignores-budget", Faults: F{IgnoresBudget: true}, Kills: []string{"CP-14"}},
	{Name: "errors-under-pressure", Faults: F{ErrorsUnderPressure: true}, Kills: []string{"CP-15"}},
	{Name: "heuristic-tokens", Faults: F{HeuristicTokens: true}, Kills: []string{"CP-16"}},
	{Name: "section-stability-unspecified", Faults: F{SectionUnspecified: true}, Kills: []string{"CP-17"}},
	{Name: "static-drifts", Faults: F{StaticDrifts: true}, Kills: []string{"CP-18"}},
	{Name: "keeps-comments", Faults: F{KeepsComments: true}, Kills: []string{"CP-19"}},
	{Name: "rewrites-history", Faults: F{RewritesHistory: true}, Kills: []string{"CP-20"}},
	{Name: "compactor-over-budget", Faults: F{Compactor: true, CompactorOverBudget: true}, Kills: []string{"CP-21"}},
	{Name: "no-error-detail", Faults: F{NoErrorDetail: true}, Kills: []string{"CP-24"}},
	{Name: "invalid-request-retryable", Faults: F{AllRetryable: true}, Kills: []string{"CP-24"}},
	{Name: "code-unknown", Faults: F{CodeUnknown: true}, Kills: []string{"CP-25"}},
	{Name: "unknown-no-message", Faults: F{UnknownNoMessage: true}, Kills: []string{"CP-26"}},
	{Name: "malformed-as-unknown", Faults: F{MalformedAsUnknown: true}, Kills: []string{"CP-27"}},
	{Name: "secret-in-error", Faults: F{SecretInError: true}, Kills: []string{"CP-28"}},
	{Name: "secret-in-stderr", Faults: F{SecretInStderr: true}, Kills: []string{"CP-28"}},
	{Name: "render-fails", Faults: F{RenderFails: true}, Kills: []string{"CP-30"}},
	{Name: "truncated-unmarked", Faults: F{TruncatedUnmarked: true}, Kills: []string{"CP-32"}},
}

// ByName returns the named mutant or variant.
func ByName(name string) (Mutant, bool) {
	for _, m := range append(append([]Mutant{}, Variants...), All...) {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}
