package mutants

import "github.com/agentconform/conform/refplugin"

// Mutant is the reference plugin with one fault.
type Mutant struct {
	Name   string
	Faults refplugin.Faults
	// Kills are the requirements that must fail (or err) on it.
	Kills []string
	// Survives says why conform cannot catch it; then Kills is empty.
	Survives string
}

// All are the plugin mutants, in requirement order.
var All = []Mutant{
	{Name: "describe-wrong-category", Faults: refplugin.Faults{DescribeWrongCategory: true}, Kills: []string{"PL-02"}},
	{Name: "schema-drifts", Faults: refplugin.Faults{SchemaDrifts: true}, Kills: []string{"PL-03"}},
	{Name: "duplicate-name", Faults: refplugin.Faults{DuplicateName: true}, Kills: []string{"PL-04"}},
	{Name: "kind-unspecified", Faults: refplugin.Faults{KindUnspecified: true}, Kills: []string{"PL-05"}},
	{Name: "resource-read-only", Faults: refplugin.Faults{ResourceReadOnly: true}, Kills: []string{"PL-06"}},
	{Name: "empty-description", Faults: refplugin.Faults{EmptyDescription: true}, Kills: []string{"PL-07"}},
	{Name: "array-without-items", Faults: refplugin.Faults{ArrayWithoutItems: true}, Kills: []string{"PL-08"}},
	{Name: "resource-no-concurrency", Faults: refplugin.Faults{ResourceNoConcurrency: true}, Kills: []string{"PL-09"}},
	{Name: "interactive-concurrency", Faults: refplugin.Faults{InteractiveConcurrency: true}, Kills: []string{"PL-10"}},
	{Name: "unknown-key-field", Faults: refplugin.Faults{UnknownKeyField: true}, Kills: []string{"PL-11"}},
	{Name: "no-default-timeout", Faults: refplugin.Faults{NoDefaultTimeout: true}, Kills: []string{"PL-12"}},
	{Name: "two-terminals", Faults: refplugin.Faults{TwoTerminals: true}, Kills: []string{"PL-14"}},
	{Name: "lead-up-not-streaming", Faults: refplugin.Faults{LeadUpNotStreaming: true}, Kills: []string{"PL-15"}},
	{Name: "exit-status-twice", Faults: refplugin.Faults{ExitStatusTwice: true}, Kills: []string{"PL-16"}},
	{Name: "exit-status-on-lookup", Faults: refplugin.Faults{ExitStatusOnLookup: true}, Kills: []string{"PL-16"}},
	{Name: "output-schema-violation", Faults: refplugin.Faults{OutputViolation: true}, Kills: []string{"PL-17"}},
	{Name: "accept-invalid", Faults: refplugin.Faults{AcceptInvalid: true}, Kills: []string{"PL-18"}},
	{Name: "invalid-as-execution-failed", Faults: refplugin.Faults{InvalidAsFailed: true}, Kills: []string{"PL-18"}},
	{Name: "unspecified-category", Faults: refplugin.Faults{UnspecifiedCategory: true}, Kills: []string{"PL-19"}},
	{Name: "unknown-without-details", Faults: refplugin.Faults{UnknownNoDetails: true}, Kills: []string{"PL-20"}},
	{Name: "plugin-emitted-process-crashed", Faults: refplugin.Faults{EmitsProcessCrashed: true}, Kills: []string{"PL-21"}},
	{Name: "crash-on-cancel", Faults: refplugin.Faults{CrashOnCancel: true}, Kills: []string{"PL-22"}},
	{Name: "cancel-leaves-child", Faults: refplugin.Faults{CancelLeavesChild: true}, Kills: []string{"PL-22"}},
	{Name: "success-after-cancel", Faults: refplugin.Faults{SuccessAfterCancel: true},
		Survives: "the result it sends after the cancel never reaches the caller: gRPC discards what a server sends on a cancelled stream, so no kernel can see it either (PL-22's unverifiable clause)"},
	{Name: "configure-accepts-missing", Faults: refplugin.Faults{ConfigureAcceptsMissing: true}, Kills: []string{"PL-23"}},
	{Name: "secret-in-error", Faults: refplugin.Faults{SecretInError: true}, Kills: []string{"PL-24"}},
	{Name: "secret-in-log", Faults: refplugin.Faults{SecretInLog: true}, Kills: []string{"PL-24"}},
	{Name: "secret-in-stderr", Faults: refplugin.Faults{SecretInStderr: true}, Kills: []string{"PL-24"}},
	{Name: "preview-writes", Faults: refplugin.Faults{PreviewWrites: true}, Kills: []string{"PL-25"}},
	{Name: "render-fails", Faults: refplugin.Faults{RenderFails: true}, Kills: []string{"PL-26"}},
	{Name: "hook-wrong-shape", Faults: refplugin.Faults{HookWrongShape: true}, Kills: []string{"PL-27"}},
	{Name: "hook-refuses-all", Faults: refplugin.Faults{HookRefusesAll: true}, Kills: []string{"PL-27"}},
	{Name: "transform-changes-immutable", Faults: refplugin.Faults{TransformImmutable: true}, Kills: []string{"PL-28"}},
	{Name: "veto-unspecified", Faults: refplugin.Faults{VetoUnspecified: true}, Kills: []string{"PL-29"}},
	{Name: "hook-slow", Faults: refplugin.Faults{HookSlow: true}, Kills: []string{"PL-30"}},
	{Name: "hook-crash-on-cancel", Faults: refplugin.Faults{HookCrashOnCancel: true}, Kills: []string{"PL-31"}},
}

// ByName returns the named mutant.
func ByName(name string) (Mutant, bool) {
	for _, m := range All {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}
