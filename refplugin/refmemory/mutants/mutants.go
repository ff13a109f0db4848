package mutants

import "github.com/agentconform/conform/refplugin/refmemory"

// Mutant is the reference with one fault; Kills is what must fail (and
// nothing else may), Survives why conform cannot catch it.
type Mutant struct {
	Name     string
	Faults   refmemory.Faults
	Kills    []string
	Survives string
}

// Variants are legal readings that must pass.
var Variants = []Mutant{
	{Name: "reference", Faults: refmemory.Faults{}},
	{Name: "ratify", Faults: refmemory.Faults{Ratify: true}},
}

type F = refmemory.Faults

// All are the mutants, in requirement order.
var All = []Mutant{
	{Name: "describe-wrong-category", Faults: F{DescribeWrongCategory: true}, Kills: []string{"MM-02"}},
	{Name: "no-default-budget", Faults: F{NoDefaultBudget: true}, Kills: []string{"MM-03"}},
	{Name: "duplicate-type", Faults: F{DuplicateType: true}, Kills: []string{"MM-04"}},
	{Name: "duplicate-scope", Faults: F{DuplicateScope: true}, Kills: []string{"MM-05"}},
	{Name: "no-config-schema", Faults: F{NoConfigSchema: true}, Kills: []string{"MM-06"}},
	{Name: "accepts-missing", Faults: F{AcceptsMissing: true}, Kills: []string{"MM-07"}},
	{Name: "secret-in-error", Faults: F{SecretInError: true}, Kills: []string{"MM-08"}},
	{Name: "secret-in-stderr", Faults: F{SecretInStderr: true}, Kills: []string{"MM-08"}},
	{Name: "status-unspecified", Faults: F{StatusUnspecified: true}, Kills: []string{"MM-09"}},
	{Name: "opaque-ids", Faults: F{OpaqueIDs: true}, Kills: []string{"MM-10"}},
	{Name: "accepts-unsupported-type", Faults: F{AcceptsUnsupportedType: true}, Kills: []string{"MM-11"}},
	{Name: "accepts-unsupported-scope", Faults: F{AcceptsUnsupportedScope: true}, Kills: []string{"MM-12"}},
	{Name: "get-wrong-title", Faults: F{GetWrongTitle: true}, Kills: []string{"MM-13"}},
	{Name: "get-unknown-empty", Faults: F{GetUnknownEmpty: true}, Kills: []string{"MM-14"}},
	{Name: "update-unknown-noop", Faults: F{UpdateUnknownNoop: true}, Kills: []string{"MM-15"}},
	{Name: "update-patches", Faults: F{UpdatePatches: true}, Kills: []string{"MM-16"}},
	{Name: "update-changes-type", Faults: F{UpdateChangesType: true}, Kills: []string{"MM-17"}},
	{Name: "delete-unknown-noop", Faults: F{DeleteUnknownNoop: true}, Kills: []string{"MM-18"}},
	{Name: "delete-keeps", Faults: F{DeleteKeeps: true}, Kills: []string{"MM-19"}},
	{Name: "list-repeats", Faults: F{ListRepeats: true}, Kills: []string{"MM-20"}},
	{Name: "list-ignores-filter", Faults: F{ListIgnoresFilter: true}, Kills: []string{"MM-21"}},
	{Name: "list-hides-pending", Faults: F{Ratify: true, ListHidesPending: true}, Kills: []string{"MM-22"}},
	{Name: "recall-pending", Faults: F{Ratify: true, RecallPending: true}, Kills: []string{"MM-23"}},
	{Name: "recall-ignores-filter", Faults: F{RecallIgnoresFilter: true}, Kills: []string{"MM-24"}},
	{Name: "recall-over-budget", Faults: F{RecallOverBudget: true}, Kills: []string{"MM-25"}},
	{Name: "heuristic-tokens", Faults: F{HeuristicTokens: true}, Kills: []string{"MM-26"}},
	{Name: "recall-drops-scope", Faults: F{RecallDropsScope: true}, Kills: []string{"MM-27"}},
	{Name: "relevance-out-of-range", Faults: F{RelevanceOutOfRange: true}, Kills: []string{"MM-28"}},
	{Name: "relevance-on-get", Faults: F{RelevanceOnGet: true}, Kills: []string{"MM-29"}},
	{Name: "oldest-first", Faults: F{OldestFirst: true}, Kills: []string{"MM-31"}},
	{Name: "answers-pending", Faults: F{AnswersPending: true}, Kills: []string{"MM-32"}},
	{Name: "approve-noop", Faults: F{Ratify: true, ApproveNoop: true}, Kills: []string{"MM-33"}},
	{Name: "reject-soft", Faults: F{Ratify: true, RejectSoft: true}, Kills: []string{"MM-34"}},
	{Name: "ratify-accepted", Faults: F{RatifyAccepted: true}, Kills: []string{"MM-35"}},
	{Name: "provenance-changes", Faults: F{ProvenanceChanges: true}, Kills: []string{"MM-36"}},
	{Name: "rejects-dangling-links", Faults: F{RejectsDanglingLinks: true}, Kills: []string{"MM-37"}},
	{Name: "no-error-detail", Faults: F{NoErrorDetail: true}, Kills: []string{"MM-38"}},
	{Name: "code-unknown", Faults: F{CodeUnknown: true}, Kills: []string{"MM-39"}},
	{Name: "unknown-no-message", Faults: F{UnknownNoMessage: true}, Kills: []string{"MM-40"}},
	{Name: "no-hooks", Faults: F{NoHooks: true}, Kills: []string{"MM-41"}},
	{Name: "render-fails", Faults: F{RenderFails: true}, Kills: []string{"MM-44"}},
	{Name: "ratify-unknown-accepted", Faults: F{Ratify: true, RatifyAccepted: true}, Kills: []string{"MM-47"}},
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
