package pluginconform

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/pluginconform/schemagen"

	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/pluginconform/kit"
)

// checkDeclarations checks every operation GetSchema declares (PL-04..PL-13),
// one scenario per operation; a provider that declares none fails PL-01.
func (r *run) checkDeclarations() {
	ops := r.schema.GetTools()
	if len(ops) == 0 {
		s := r.rec.Scenario("plugin/declare", "GetSchema declares operations", "PL-01")
		s.Fail("GetSchema declares at least one operation", "GetSchema declares no operation: a tool provider with nothing to invoke", "PL-01")
		r.rec.Add(s)
		return
	}
	names := map[string]int{}
	for _, op := range ops {
		names[op.GetName()]++
	}
	for i, op := range ops {
		label := op.GetName()
		if label == "" {
			label = fmt.Sprintf("#%d", i+1)
		}
		s := r.rec.Scenario("plugin/declare/"+label, "declaration of operation "+label)
		r.declaration(s, op, names)
		r.rec.Add(s)
	}
}

func (r *run) declaration(s *kit.Scenario, op *toolv1.ToolSchema, names map[string]int) {
	name := op.GetName()
	switch {
	case strings.TrimSpace(name) == "":
		s.Fail("the operation has a name", "an operation has an empty name", "PL-04")
	case names[name] > 1:
		s.Fail("the operation's name is unique", fmt.Sprintf("%d operations are named %q", names[name], name), "PL-04")
	default:
		s.Pass("the operation has a unique name", "PL-04")
	}

	kind := op.GetKind()
	kindKnown := kind == toolv1.ToolKind_TOOL_KIND_RESOURCE || kind == toolv1.ToolKind_TOOL_KIND_DATA_SOURCE || kind == toolv1.ToolKind_TOOL_KIND_INTERACTIVE
	s.Check("the operation declares its kind", ifBad(!kindKnown, "kind is %s", kind), "PL-05")

	risk := op.GetRisk()
	switch {
	case !kindKnown:
		s.NotReached("the risk follows the kind", "the kind is not declared, so the risk it requires is unknown", "PL-06")
	case risk == toolv1.RiskClass_RISK_CLASS_UNSPECIFIED:
		s.Fail("the risk follows the kind", "risk is RISK_CLASS_UNSPECIFIED", "PL-06")
	case kind == toolv1.ToolKind_TOOL_KIND_RESOURCE:
		s.Check("a resource declares low, moderate, high or critical", ifBad(risk == toolv1.RiskClass_RISK_CLASS_READ_ONLY, "a resource declares risk read_only"), "PL-06")
	default:
		s.Check("a "+kindWord(kind)+" operation declares risk read_only", ifBad(risk != toolv1.RiskClass_RISK_CLASS_READ_ONLY, "a %s operation declares risk %s, not read_only", kindWord(kind), risk), "PL-06")
	}

	s.Check("the operation has a description", ifBad(strings.TrimSpace(op.GetDescription()) == "", "the description is empty"), "PL-07")

	var subset []string
	for _, side := range []struct {
		what string
		bad  []string
	}{{"input_schema", schemagen.Subset(op.GetInputSchema())}, {"output_schema", schemagen.Subset(op.GetOutputSchema())}} {
		for _, b := range side.bad {
			subset = append(subset, side.what+" "+b)
		}
	}
	s.Check("input_schema and output_schema are in the common subset", ifBad(len(subset) > 0, "%s", strings.Join(subset, "; ")), "PL-08")

	conc := op.GetConcurrency()
	switch kind {
	case toolv1.ToolKind_TOOL_KIND_INTERACTIVE:
		s.Check("an interactive operation declares no ConcurrencySpec", ifBad(conc != nil, "an interactive operation declares a ConcurrencySpec (safe %v)", conc.GetSafe()), "PL-10")
	case toolv1.ToolKind_TOOL_KIND_RESOURCE, toolv1.ToolKind_TOOL_KIND_DATA_SOURCE:
		s.Check("a "+kindWord(kind)+" operation declares a ConcurrencySpec", ifBad(conc == nil, "no ConcurrencySpec declared"), "PL-09")
	}
	r.keyFields(s, op)

	d := op.GetDefaultTimeout()
	s.Check("the operation declares a positive default_timeout", ifBad(d == nil || d.AsDuration() <= 0, "%s", timeoutWord(op)), "PL-12")

	s.Unverifiable("idempotent is true only for an operation that re-runs to the same end state",
		fmt.Sprintf("declared idempotent %v; whether re-running changes the end state is not observable, and proto3 cannot tell false from unset", op.GetIdempotent()), "PL-13")
}

func (r *run) keyFields(s *kit.Scenario, op *toolv1.ToolSchema) {
	keys := op.GetConcurrency().GetKeyFields()
	if len(keys) == 0 {
		return // nothing declared, nothing to check
	}
	var bad []string
	for _, k := range keys {
		if _, ok := op.GetInputSchema().GetProperties()[k]; !ok {
			bad = append(bad, fmt.Sprintf("%q", k))
		}
	}
	s.Check("every key_fields entry names an input property", ifBad(len(bad) > 0, "key_fields %s %s not a property of input_schema", strings.Join(bad, ", "), plural(len(bad), "is", "are")), "PL-11")
	if !op.GetConcurrency().GetSafe() {
		s.Observe("PL-11", fmt.Sprintf("operation %q declares key_fields %v with safe false, where they mean nothing", op.GetName(), keys))
	}
}

func timeoutWord(op *toolv1.ToolSchema) string {
	if op.GetDefaultTimeout() == nil {
		return "no default_timeout declared"
	}
	return fmt.Sprintf("default_timeout is %v", op.GetDefaultTimeout().AsDuration())
}

func kindWord(k toolv1.ToolKind) string {
	return strings.ToLower(strings.TrimPrefix(k.String(), "TOOL_KIND_"))
}

// ifBad returns the message when bad, "" otherwise.
func ifBad(bad bool, format string, args ...any) string {
	if !bad {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

func plural(n int, one, many string) string { return kit.Plural(n, one, many) }

// opByName returns the declared operation, nil when none.
func (r *run) opByName(name string) *toolv1.ToolSchema {
	i := slices.IndexFunc(r.schema.GetTools(), func(t *toolv1.ToolSchema) bool { return t.GetName() == name })
	if i < 0 {
		return nil
	}
	return r.schema.GetTools()[i]
}
