package refkernel

import (
	"strconv"

	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// Name and Version identify the reference kernel in its initialize answer.
const (
	Name    = "conform-refkernel"
	Version = "0.1.0"
)

// Capabilities are the optional capabilities (names from
// spec/requirements.json) the reference kernel really implements. Soft
// limits, weighted tokens, the doom-loop model check, batched asks, the
// circuit breaker and history forking are not offered yet.
var Capabilities = []string{
	"bound.max_cost_usd",
	"bound.max_wall_clock_s",
	"done.terminal_tool",
	"errors.tool_crash_result",
	"hooks.concurrent_observe",
	"hooks.third_party_veto",
}

// Readings are the kernel's answers to points the spec leaves open. The
// first five keys are the ones PROTOCOL.md §15 names; the others record
// further choices of this kernel.
func Readings() map[string]string {
	return map[string]string{
		"doom_loop.default_threshold":  strconv.Itoa(doomloop.DefaultThreshold),
		"doom_loop.status":             doomloop.Status,
		"circuit_breaker.status":       wire.StatusErrorMaxTurns,
		"hooks.transform_abort_status": wire.StatusFailed,
		"depth.meaning":                "tree",
		"model_error.status":           wire.StatusFailed,
		"hooks.unknown_tool":           "no_tool_hooks",
		"hooks.observe_failure_record": wire.EventHookError,
		"policy.always_scope":          "refused_unless_persist_always",
		"plan.preview_timeout_ms":      strconv.Itoa(int(loop.DefaultPreviewTimeout.Milliseconds())),
	}
}

// Info is the kernel's initialize answer.
func (k *Kernel) Info() wire.InitializeResult {
	caps := append([]string(nil), Capabilities...)
	r := Readings()
	r["plan.preview_timeout_ms"] = strconv.FormatInt(k.previewTimeout.Milliseconds(), 10)
	return wire.InitializeResult{
		ProtocolVersion: wire.Version,
		Kernel:          wire.Peer{Name: Name, Version: Version},
		Capabilities:    caps,
		Readings:        r,
	}
}
