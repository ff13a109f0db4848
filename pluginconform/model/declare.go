package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
)

// checkDeclarations judges what GetCapabilities declares, model by model.
func (r *run) checkDeclarations() {
	s := r.rec.Scenario("model/declare", "GetCapabilities declarations", "MP-04", "MP-05", "MP-06", "MP-07", "MP-08", "MP-27", "MP-28", "MP-34")
	defer r.rec.Add(s)
	caps := r.caps
	var bad []string
	if len(caps.GetModels()) == 0 {
		bad = append(bad, "no ModelSpec is declared")
	}
	if caps.GetConfigSchema() == nil {
		bad = append(bad, "no ConfigSchema is declared")
	}
	seenAttr := map[string]bool{}
	for _, a := range caps.GetConfigSchema().GetAttributes() {
		switch {
		case strings.TrimSpace(a.GetName()) == "":
			bad = append(bad, "a configuration attribute has no name")
		case seenAttr[a.GetName()]:
			bad = append(bad, fmt.Sprintf("configuration attribute %q is declared twice", a.GetName()))
		}
		seenAttr[a.GetName()] = true
	}
	s.Check("Capabilities declare at least one model and the ConfigSchema", strings.Join(bad, "; "), "MP-04")

	seen := map[string]bool{}
	for _, m := range caps.GetModels() {
		name := fmt.Sprintf("model %q", m.GetId())
		var bad []string
		switch {
		case strings.TrimSpace(m.GetId()) == "":
			bad = append(bad, "a ModelSpec has no id")
		case seen[m.GetId()]:
			bad = append(bad, "id "+strconv.Quote(m.GetId())+" is declared twice")
		}
		seen[m.GetId()] = true
		if m.GetContextWindow() <= 0 {
			bad = append(bad, fmt.Sprintf("context_window is %d", m.GetContextWindow()))
		}
		if m.GetMaxOutputTokens() <= 0 {
			bad = append(bad, fmt.Sprintf("max_output_tokens is %d", m.GetMaxOutputTokens()))
		}
		s.Check(name+": id, context_window and max_output_tokens", strings.Join(bad, "; "), "MP-05")
		s.Check(name+": ThinkingSpec declared precisely", thinkingProblem(m.GetThinking()), "MP-06")
		s.Check(name+": CachingSpec declared precisely", cachingProblem(m.GetCaching()), "MP-07")
		s.Check(name+": Pricing present and well-formed", pricingProblem(m), "MP-08")
		if modes := m.GetSupportedToolChoiceModes(); len(modes) > 0 {
			s.Check(name+": declared tool-choice modes are real, each once", modesProblem(modes), "MP-27")
		}
		if m.GetSupportsToolUse() {
			msg := ""
			if m.SupportsParallelToolCalls == nil {
				msg = "the model uses tools but does not declare supports_parallel_tool_calls"
			}
			s.Check(name+": supports_parallel_tool_calls declared", msg, "MP-28")
		}
	}
	pts := caps.GetSupportedHookPoints()
	var pbad []string
	for i, p := range pts {
		if p == commonv1.HookPoint_HOOK_POINT_UNSPECIFIED || commonv1.HookPoint_name[int32(p)] == "" {
			pbad = append(pbad, "hook point "+p.String()+" is not a dispatchable point")
		}
		if slices.Index(pts, p) != i {
			pbad = append(pbad, "hook point "+p.String()+" is declared twice")
		}
	}
	s.Check(fmt.Sprintf("supported_hook_points (%d declared) name real points, each once", len(pts)), strings.Join(pbad, "; "), "MP-34")
}

func thinkingProblem(t *modelv1.ThinkingSpec) string {
	if t == nil {
		return "no ThinkingSpec (use supported false, mode none)"
	}
	mode := t.GetMode()
	switch {
	case !t.GetSupported() && mode != modelv1.ThinkingMode_THINKING_MODE_NONE:
		return "supported is false but mode is " + mode.String() + ", not THINKING_MODE_NONE"
	case t.GetSupported() && (mode == modelv1.ThinkingMode_THINKING_MODE_NONE || mode == modelv1.ThinkingMode_THINKING_MODE_UNSPECIFIED):
		return "supported is true but mode is " + mode.String()
	case mode == modelv1.ThinkingMode_THINKING_MODE_DISCRETE_EFFORT && len(t.GetEffortLevels()) == 0:
		return "mode discrete_effort lists no effort level"
	case mode == modelv1.ThinkingMode_THINKING_MODE_CONTINUOUS_BUDGET && t.BudgetRange == nil:
		return "mode continuous_budget declares no budget range"
	case mode == modelv1.ThinkingMode_THINKING_MODE_CONTINUOUS_BUDGET && (t.GetBudgetRange().GetMin() < 0 || t.GetBudgetRange().GetMin() > t.GetBudgetRange().GetMax()):
		return fmt.Sprintf("budget range %d..%d is not 0 <= min <= max", t.GetBudgetRange().GetMin(), t.GetBudgetRange().GetMax())
	case mode != modelv1.ThinkingMode_THINKING_MODE_NONE && t.Default == nil:
		return "mode " + mode.String() + " declares no default"
	case mode == modelv1.ThinkingMode_THINKING_MODE_DISCRETE_EFFORT && !slices.Contains(t.GetEffortLevels(), t.GetDefault()):
		return fmt.Sprintf("default %q is not one of the effort levels %v", t.GetDefault(), t.GetEffortLevels())
	case mode == modelv1.ThinkingMode_THINKING_MODE_CONTINUOUS_BUDGET:
		n, err := strconv.ParseInt(t.GetDefault(), 10, 64)
		if err != nil || n < t.GetBudgetRange().GetMin() || n > t.GetBudgetRange().GetMax() {
			return fmt.Sprintf("default %q is not a budget within %d..%d", t.GetDefault(), t.GetBudgetRange().GetMin(), t.GetBudgetRange().GetMax())
		}
	}
	return ""
}

func cachingProblem(c *modelv1.CachingSpec) string {
	if c == nil {
		return "no CachingSpec (use supported false, mode none)"
	}
	mode := c.GetMode()
	switch {
	case !c.GetSupported() && mode != modelv1.CachingMode_CACHING_MODE_NONE:
		return "supported is false but mode is " + mode.String() + ", not CACHING_MODE_NONE"
	case c.GetSupported() && mode != modelv1.CachingMode_CACHING_MODE_EXPLICIT_MARKERS && mode != modelv1.CachingMode_CACHING_MODE_IMPLICIT_AUTOMATIC:
		return "supported is true but mode is " + mode.String()
	}
	return ""
}

func pricingProblem(m *modelv1.ModelSpec) string {
	p := m.GetPricing()
	if p == nil {
		return "no Pricing (required even for a free model)"
	}
	var bad []string
	if p.GetCurrency() != "USD" {
		bad = append(bad, fmt.Sprintf("currency %q, not USD", p.GetCurrency()))
	}
	if !p.GetFree() && len(p.GetTiers()) == 0 {
		bad = append(bad, "no tier, and not free")
	}
	caching := m.GetCaching().GetSupported()
	for i, t := range p.GetTiers() {
		for name, v := range map[string]float64{"input_per_mtok": t.GetInputPerMtok(), "output_per_mtok": t.GetOutputPerMtok(),
			"cache_write_per_mtok": t.GetCacheWritePerMtok(), "cache_read_per_mtok": t.GetCacheReadPerMtok(),
			"batch_input_per_mtok": t.GetBatchInputPerMtok(), "batch_output_per_mtok": t.GetBatchOutputPerMtok()} {
			if v < 0 {
				bad = append(bad, fmt.Sprintf("tier %d: %s is %v", i+1, name, v))
			}
		}
		hasCache := t.CacheWritePerMtok != nil && t.CacheReadPerMtok != nil
		if caching && !hasCache && !p.GetFree() {
			bad = append(bad, fmt.Sprintf("tier %d: caching is supported but the cache rates are missing", i+1))
		}
		if !caching && (t.CacheWritePerMtok != nil || t.CacheReadPerMtok != nil) {
			bad = append(bad, fmt.Sprintf("tier %d: caching is not supported but a cache rate is present", i+1))
		}
	}
	slices.Sort(bad)
	return strings.Join(bad, "; ")
}

func modesProblem(modes []modelv1.ToolChoiceMode) string {
	for i, m := range modes {
		if m == modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_UNSPECIFIED || modelv1.ToolChoiceMode_name[int32(m)] == "" {
			return "mode " + m.String() + " is not a tool-choice mode"
		}
		if slices.Index(modes, m) != i {
			return "mode " + m.String() + " is declared twice"
		}
	}
	return ""
}
