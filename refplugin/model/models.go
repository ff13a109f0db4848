package model

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	configv1 "github.com/agentconform/conform/api/gen/pluggableharness/config/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
)

// The served models' ids.
const (
	Echo  = "echo-1"
	Batch = "batch-1"
	Free  = "free-1"
)

// intro is when echo-1's introductory price ends: one tier before it, two
// after it split at LargeInput input tokens.
var intro = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// LargeInput is the input size from which echo-1 costs more.
const LargeInput = 200_000

// models declares the three served models; n counts GetCapabilities calls
// (a drifting fault changes its answer each time).
func models(f Faults, n int) []*modelv1.ModelSpec {
	all := []modelv1.ToolChoiceMode{modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_AUTO, modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_ANY,
		modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_NONE, modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_SPECIFIC}
	echo := &modelv1.ModelSpec{
		Id: Echo, ContextWindow: 1_000_000, MaxOutputTokens: 8192,
		SupportsToolUse: true, SupportsVision: true, SupportsStreaming: true, SupportsDocuments: true,
		SupportsParallelToolCalls: proto.Bool(true),
		Thinking: &modelv1.ThinkingSpec{Supported: true, Mode: modelv1.ThinkingMode_THINKING_MODE_DISCRETE_EFFORT,
			EffortLevels: []string{"low", "medium", "high"}, CanDisable: true, Default: proto.String("medium")},
		Caching:                  &modelv1.CachingSpec{Supported: true, Mode: modelv1.CachingMode_CACHING_MODE_EXPLICIT_MARKERS, KeepaliveSupported: false},
		SupportedToolChoiceModes: all,
		Pricing: &modelv1.Pricing{Currency: "USD", Tiers: []*modelv1.PricingTier{
			{EffectiveUntil: timestamppb.New(intro), InputPerMtok: 1, OutputPerMtok: 5, CacheWritePerMtok: proto.Float64(1.25), CacheReadPerMtok: proto.Float64(0.1)},
			{EffectiveFrom: timestamppb.New(intro), InputTokensUntil: proto.Int64(LargeInput), InputPerMtok: 3, OutputPerMtok: 15,
				CacheWritePerMtok: proto.Float64(3.75), CacheReadPerMtok: proto.Float64(0.3), BatchInputPerMtok: proto.Float64(1.5), BatchOutputPerMtok: proto.Float64(7.5)},
			{EffectiveFrom: timestamppb.New(intro), InputTokensFrom: proto.Int64(LargeInput), InputPerMtok: 6, OutputPerMtok: 22.5,
				CacheWritePerMtok: proto.Float64(7.5), CacheReadPerMtok: proto.Float64(0.6)},
		}},
	}
	if f.CapabilitiesDrift {
		echo.ContextWindow += int64(n)
	}
	if f.ThinkingNoDefault {
		echo.Thinking.Default = nil
	}
	if f.TierGap {
		echo.Pricing.Tiers[2].InputTokensFrom = proto.Int64(LargeInput + 1)
	}
	if f.ParallelUndeclared {
		echo.SupportsParallelToolCalls = nil
	}
	batch := &modelv1.ModelSpec{
		Id: Batch, ContextWindow: 128_000, MaxOutputTokens: 4096,
		Thinking: &modelv1.ThinkingSpec{Supported: true, Mode: modelv1.ThinkingMode_THINKING_MODE_CONTINUOUS_BUDGET,
			BudgetRange: &modelv1.ThinkingBudgetRange{Min: 1024, Max: 32768}, CanDisable: true, Default: proto.String("4096")},
		Caching: &modelv1.CachingSpec{Supported: true, Mode: modelv1.CachingMode_CACHING_MODE_IMPLICIT_AUTOMATIC},
		Pricing: &modelv1.Pricing{Currency: "USD", Tiers: []*modelv1.PricingTier{
			{InputPerMtok: 0.5, OutputPerMtok: 1.5, CacheWritePerMtok: proto.Float64(0.5), CacheReadPerMtok: proto.Float64(0.05)},
		}},
	}
	if f.CachingModeNone {
		batch.Caching.Mode = modelv1.CachingMode_CACHING_MODE_NONE
	}
	if f.MaxOutputZero {
		batch.MaxOutputTokens = 0
	}
	if f.NoPricing {
		batch.Pricing = nil
	}
	free := &modelv1.ModelSpec{
		Id: Free, ContextWindow: 8192, MaxOutputTokens: 2048,
		SupportsToolUse: true, SupportsStreaming: true, SupportsDocuments: true,
		SupportsParallelToolCalls: proto.Bool(false),
		Thinking:                  &modelv1.ThinkingSpec{Mode: modelv1.ThinkingMode_THINKING_MODE_NONE},
		Caching:                   &modelv1.CachingSpec{Mode: modelv1.CachingMode_CACHING_MODE_NONE},
		SupportedToolChoiceModes:  []modelv1.ToolChoiceMode{modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_AUTO, modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_NONE},
		Pricing:                   &modelv1.Pricing{Currency: "USD", Free: true},
	}
	return []*modelv1.ModelSpec{echo, batch, free}
}

func (p *Provider) spec(id string) *modelv1.ModelSpec {
	for _, m := range models(Faults{}, 0) {
		if m.GetId() == id {
			return m
		}
	}
	return nil
}

func configSchema() *configv1.ConfigSchema {
	return &configv1.ConfigSchema{Attributes: []*configv1.ConfigAttribute{
		{Name: "api_key", Type: configv1.AttrType_ATTR_TYPE_STRING, Required: true, Sensitive: true, Description: "the vendor API key (the echo model checks only that one is given)"},
		{Name: "base_url", Type: configv1.AttrType_ATTR_TYPE_STRING, Description: "the vendor endpoint (never dialled: the echo model is local)"},
	}}
}

func hookPoints(f Faults) []commonv1.HookPoint {
	pts := []commonv1.HookPoint{commonv1.HookPoint_HOOK_POINT_PRE_MODEL_CALL, commonv1.HookPoint_HOOK_POINT_POST_MODEL_RESPONSE}
	if f.UnspecifiedHookPoint {
		pts = append(pts, commonv1.HookPoint_HOOK_POINT_UNSPECIFIED)
	}
	return pts
}
