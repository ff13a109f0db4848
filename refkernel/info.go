package refkernel

import (
	"strconv"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/internal/canon"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/spec/wire"
)

// Name and Version identify the reference kernel in its initialize answer.
const (
	Name    = "conform-refkernel"
	Version = "0.1.0"
)

// Capabilities are the optional capabilities (names from
// spec/requirements.json) the reference kernel really implements.
var Capabilities = []string{
	"bound.max_cost_usd",
	"bound.max_wall_clock_s",
	"bound.soft_limits",
	"cost.weighted_tokens",
	"doomloop.model_check",
	"errors.crash_breaker",
	"errors.tool_crash_result",
	"hooks.concurrent_observe",
	"hooks.third_party_veto",
	"plan.batched_ask",
	"plan.circuit_breaker",
	"subagents.history_fork",
	"profile.deterministic_first",
}

// Readings are the kernel's answers to points the spec leaves open. The
// first five keys are the ones PROTOCOL.md §15 names; the others record
// further choices of this kernel.
func Readings() map[string]string {
	return map[string]string{
		"doom_loop.default_threshold":          strconv.Itoa(doomloop.DefaultThreshold),
		"doom_loop.status":                     doomloop.Status,
		"doom_loop.interactive_calls":          "invisible", // see package doomloop for its readings
		"doom_loop.model_check_min_confidence": strconv.FormatFloat(doomloop.Confident, 'f', -1, 64),
		"doom_loop.model_check_counts":         "relevant_calls",  // loop.relevantCalls feeds the window
		"bound.soft_resume":                    "fresh_allowance", // see package bounds for its readings
		"bound.cost_fires_at":                  "remaining_budget_le_zero",
		"bound.zero":                           bounds.ZeroBound,
		"hooks.zero_timeout":                   hooks.ZeroTimeout,
		"doom_loop.number_identity":            canon.Numbers,
		"circuit_breaker.status":               plangate.BreakerStatus,
		"circuit_breaker.default":              "off",
		"plan.max_asks":                        strconv.Itoa(plangate.MaxAsks),
		"plan.late_permission_answer":          "awaited_then_rejected", // see plangate/decide.go (PA-16)
		"plan.late_interactive_answer":         "awaited_then_rejected", // see plangate/interactive.go (PA-16)
		"concurrency.interactive":              "one_shared_exclusive_key",
		"concurrency.undeclared_data_source":   "sequential", // the data-types rule (schedule.StandardKeys)
		"hooks.transform_abort_status":         wire.StatusFailed,
		"hooks.veto_points":                    loop.VetoPoints,
		"depth.meaning":                        "tree", // see package subagent for its readings
		"max_depth.default":                    strconv.Itoa(subagent.DefaultMaxDepth),
		"subagents.max_concurrent.default":     strconv.Itoa(subagent.DefaultMaxConcurrent),
		"subagents.fork":                       "parent_history_at_turn_start",
		"subagents.parent_mismatch":            "invalid_params",
		"model_error.status":                   wire.StatusFailed,
		"retry.jitter_min_ratio":               strconv.FormatFloat(retry.JitterMinRatio, 'f', -1, 64),
		"retry.jitter_max_ratio":               "1", // equal jitter never waits above nominal (retry.Backoff.Delay)
		"retry.session_max_retries.default":    strconv.Itoa(retry.DefaultSessionMaxRetries),
		"errors.max_reductions":                strconv.Itoa(retry.MaxReductions),
		"errors.tool_retries":                  strconv.Itoa(retry.MaxToolRetries),
		"errors.crash_breaker.count":           "per_provider_in_a_row",
		"hooks.unknown_tool":                   "no_tool_hooks",
		"hooks.observe_failure_record":         wire.EventHookError,
		"policy.always_scope":                  "refused_unless_persist_always",
		"plan.preview_timeout_ms":              strconv.Itoa(int(loop.DefaultPreviewTimeout.Milliseconds())),
		"df.reopen_history":                    "fresh",     // see package dfirst
		"trace.child_sessions":                 "own_trace", // a session span is a new root (trace.sdkTracer.Start)
	}
}

// Info is the kernel's initialize answer.
func (k *Kernel) Info() wire.InitializeResult {
	caps := append([]string(nil), Capabilities...)
	r := Readings()
	r["plan.preview_timeout_ms"] = strconv.FormatInt(k.previewTimeout.Milliseconds(), 10)
	r["doom_loop.status"] = k.parts.DoomLoop.Status()
	info := wire.InitializeResult{
		ProtocolVersion: wire.Version,
		Kernel:          wire.Peer{Name: Name, Version: Version},
		Capabilities:    caps,
		Readings:        r,
	}
	if k.declare != nil {
		k.declare(&info)
	}
	return info
}
