package hookgen

import (
	"google.golang.org/protobuf/types/known/structpb"
	"pgregory.net/rapid"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	hookv1 "github.com/agentconform/conform/api/gen/pluggableharness/hook/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	planv1 "github.com/agentconform/conform/api/gen/pluggableharness/plan/v1"
	sessionv1 "github.com/agentconform/conform/api/gen/pluggableharness/session/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
)

// Points are the eight dispatchable hook points, in enum order.
func Points() []commonv1.HookPoint {
	var out []commonv1.HookPoint
	for p := commonv1.HookPoint_HOOK_POINT_SESSION_START; p <= commonv1.HookPoint_HOOK_POINT_SESSION_END; p++ {
		out = append(out, p)
	}
	return out
}

// Payload generates payloads of the point's variant; nil for a point that
// is not one of the eight.
func Payload(p commonv1.HookPoint) *rapid.Generator[*hookv1.HookPayload] {
	var f func(t *rapid.T) *hookv1.HookPayload
	switch p {
	case commonv1.HookPoint_HOOK_POINT_SESSION_START:
		f = func(t *rapid.T) *hookv1.HookPayload {
			v := &hookv1.SessionStartPayload{SessionId: id(t, "session"), Profile: word(t, "profile"), WorkingDirectory: "/work/" + word(t, "dir")}
			if rapid.Bool().Draw(t, "child") {
				parent := id(t, "parent")
				v.ParentSessionId = &parent
			}
			return &hookv1.HookPayload{Payload: &hookv1.HookPayload_SessionStart{SessionStart: v}}
		}
	case commonv1.HookPoint_HOOK_POINT_PRE_MODEL_CALL:
		f = func(t *rapid.T) *hookv1.HookPayload {
			return &hookv1.HookPayload{Payload: &hookv1.HookPayload_PreModelCall{PreModelCall: &hookv1.PreModelCallPayload{
				Messages: rapid.SliceOfN(rapid.Custom(message), 1, 4).Draw(t, "messages"),
				Model:    &modelv1.ModelRef{Provider: word(t, "provider"), Id: word(t, "model")},
			}}}
		}
	case commonv1.HookPoint_HOOK_POINT_POST_MODEL_RESPONSE:
		f = func(t *rapid.T) *hookv1.HookPayload {
			return &hookv1.HookPayload{Payload: &hookv1.HookPayload_PostModelResponse{PostModelResponse: &hookv1.PostModelResponsePayload{
				Message: message(t),
				Model:   &commonv1.ProducerRef{Name: word(t, "provider"), Version: "1.0.0", Category: commonv1.Category_CATEGORY_MODEL, ProtocolVersion: 1},
				Usage:   &modelv1.Usage{InputTokens: int64(rapid.IntRange(0, 100000).Draw(t, "in")), OutputTokens: int64(rapid.IntRange(0, 10000).Draw(t, "out"))},
				CostUsd: float64(rapid.IntRange(0, 10000).Draw(t, "cost")) / 10000,
			}}}
		}
	case commonv1.HookPoint_HOOK_POINT_PRE_TOOL_CALL:
		f = func(t *rapid.T) *hookv1.HookPayload {
			item := planItem(t)
			call := toolCall(t)
			item.CallId, item.OperationName = call.GetId(), call.GetToolName()
			return &hookv1.HookPayload{Payload: &hookv1.HookPayload_PreToolCall{PreToolCall: &hookv1.PreToolCallPayload{Call: call, PlanItem: item}}}
		}
	case commonv1.HookPoint_HOOK_POINT_PLAN_READY:
		f = func(t *rapid.T) *hookv1.HookPayload {
			return &hookv1.HookPayload{Payload: &hookv1.HookPayload_PlanReady{PlanReady: &hookv1.PlanReadyPayload{Plan: &planv1.Plan{
				TurnId: id(t, "turn"), Items: rapid.SliceOfN(rapid.Custom(planItem), 0, 4).Draw(t, "items"),
			}}}}
		}
	case commonv1.HookPoint_HOOK_POINT_POST_TOOL_CALL:
		f = func(t *rapid.T) *hookv1.HookPayload {
			v := &hookv1.PostToolCallPayload{Call: toolCall(t)}
			if rapid.Bool().Draw(t, "ok") {
				v.Outcome = &hookv1.PostToolCallPayload_Result{Result: toolResult(t)}
			} else {
				v.Outcome = &hookv1.PostToolCallPayload_Error{Error: toolError(t)}
			}
			return &hookv1.HookPayload{Payload: &hookv1.HookPayload_PostToolCall{PostToolCall: v}}
		}
	case commonv1.HookPoint_HOOK_POINT_POST_APPLY:
		f = func(t *rapid.T) *hookv1.HookPayload {
			return &hookv1.HookPayload{Payload: &hookv1.HookPayload_PostApply{PostApply: &hookv1.PostApplyPayload{Apply: &planv1.ApplyResult{
				TurnId: id(t, "turn"), Items: rapid.SliceOfN(rapid.Custom(applyItem), 0, 4).Draw(t, "items"),
			}}}}
		}
	case commonv1.HookPoint_HOOK_POINT_SESSION_END:
		f = func(t *rapid.T) *hookv1.HookPayload {
			st := rapid.SampledFrom([]sessionv1.SessionStatus{
				sessionv1.SessionStatus_SESSION_STATUS_COMPLETED, sessionv1.SessionStatus_SESSION_STATUS_ERROR_MAX_TURNS,
				sessionv1.SessionStatus_SESSION_STATUS_ERROR_MAX_BUDGET_USD, sessionv1.SessionStatus_SESSION_STATUS_ERROR_MAX_WALL_CLOCK,
				sessionv1.SessionStatus_SESSION_STATUS_CANCELLED, sessionv1.SessionStatus_SESSION_STATUS_FAILED,
			}).Draw(t, "status")
			return &hookv1.HookPayload{Payload: &hookv1.HookPayload_SessionEnd{SessionEnd: &hookv1.SessionEndPayload{SessionId: id(t, "session"), Status: st}}}
		}
	default:
		return nil
	}
	return rapid.Custom(f)
}

func id(t *rapid.T, label string) string {
	return rapid.StringMatching(`[a-z0-9]{4,12}`).Draw(t, label)
}

func word(t *rapid.T, label string) string {
	return rapid.StringMatching(`[a-z][a-z0-9_-]{0,10}`).Draw(t, label)
}

func text(t *rapid.T, label string) string { return rapid.StringN(0, 40, -1).Draw(t, label) }

func args(t *rapid.T) *structpb.Struct {
	m := map[string]any{}
	for _, k := range rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z]{1,6}`), 0, 3, rapid.ID[string]).Draw(t, "arg names") {
		m[k] = text(t, "arg "+k)
	}
	s, _ := structpb.NewStruct(m)
	return s
}

func message(t *rapid.T) *contentv1.Message {
	blocks := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) *contentv1.ContentBlock {
		switch rapid.IntRange(0, 2).Draw(t, "block kind") {
		case 0:
			return &contentv1.ContentBlock{Block: &contentv1.ContentBlock_ToolUse{ToolUse: &contentv1.ToolUseBlock{Id: id(t, "use"), Name: word(t, "tool"), Arguments: args(t)}}}
		case 1:
			return &contentv1.ContentBlock{Block: &contentv1.ContentBlock_ToolResult{ToolResult: &contentv1.ToolResultBlock{
				ToolUseId: id(t, "use"), IsError: rapid.Bool().Draw(t, "is error"),
				Content: []*contentv1.ContentBlock{{Block: &contentv1.ContentBlock_Text{Text: &contentv1.TextBlock{Text: text(t, "result text")}}}},
			}}}
		}
		return &contentv1.ContentBlock{Block: &contentv1.ContentBlock_Text{Text: &contentv1.TextBlock{Text: text(t, "text")}}}
	}), 1, 3).Draw(t, "blocks")
	role := rapid.SampledFrom([]contentv1.Role{contentv1.Role_ROLE_USER, contentv1.Role_ROLE_ASSISTANT}).Draw(t, "role")
	return &contentv1.Message{Role: role, Content: blocks, Id: id(t, "message")}
}

func toolCall(t *rapid.T) *toolv1.ToolCall {
	return &toolv1.ToolCall{Id: id(t, "call"), ToolName: word(t, "tool"), Arguments: args(t),
		CallContext: &commonv1.CallContext{SessionId: id(t, "session"), TurnId: id(t, "turn"), WorkingDirectory: "/work"}}
}

func planItem(t *rapid.T) *planv1.PlanItem {
	kind := rapid.SampledFrom([]toolv1.ToolKind{toolv1.ToolKind_TOOL_KIND_RESOURCE, toolv1.ToolKind_TOOL_KIND_DATA_SOURCE, toolv1.ToolKind_TOOL_KIND_INTERACTIVE}).Draw(t, "kind")
	risk := toolv1.RiskClass_RISK_CLASS_READ_ONLY
	if kind == toolv1.ToolKind_TOOL_KIND_RESOURCE {
		risk = rapid.SampledFrom([]toolv1.RiskClass{toolv1.RiskClass_RISK_CLASS_LOW, toolv1.RiskClass_RISK_CLASS_MODERATE, toolv1.RiskClass_RISK_CLASS_HIGH, toolv1.RiskClass_RISK_CLASS_CRITICAL}).Draw(t, "risk")
	}
	return &planv1.PlanItem{
		Id: id(t, "item"), CallId: id(t, "call"), Provider: word(t, "provider"), OperationName: word(t, "tool"), Input: args(t),
		Decision: planv1.PlanDecision_PLAN_DECISION_ALLOW, DecidedBy: "policy", Kind: kind, Risk: risk, Description: text(t, "description"),
		ProducerCategory: commonv1.Category_CATEGORY_TOOL,
	}
}

func toolResult(t *rapid.T) *toolv1.ToolResult { return &toolv1.ToolResult{Payload: args(t)} }

func toolError(t *rapid.T) *toolv1.ToolError {
	cat := toolv1.ToolErrorCategory(rapid.IntRange(1, 7).Draw(t, "category"))
	return &toolv1.ToolError{Category: cat, Message: text(t, "error message"), Retryable: rapid.Bool().Draw(t, "retryable")}
}

func applyItem(t *rapid.T) *planv1.ApplyResult_ApplyItem {
	it := &planv1.ApplyResult_ApplyItem{PlanItemId: id(t, "item"), CallId: id(t, "call")}
	switch rapid.IntRange(0, 2).Draw(t, "outcome") {
	case 0:
		it.Outcome = planv1.ApplyResult_APPLY_OUTCOME_APPLIED
		it.Result = &planv1.ApplyResult_ApplyItem_ToolResult{ToolResult: toolResult(t)}
	case 1:
		it.Outcome = planv1.ApplyResult_APPLY_OUTCOME_FAILED
		it.Result = &planv1.ApplyResult_ApplyItem_ToolError{ToolError: toolError(t)}
	default:
		it.Outcome = planv1.ApplyResult_APPLY_OUTCOME_DENIED
	}
	return it
}
