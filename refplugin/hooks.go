package refplugin

import (
	"context"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	hookv1 "github.com/agentconform/conform/api/gen/pluggableharness/hook/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
)

// hooks is the reference hook subscriber: it acknowledges observe, adds a
// note to the messages at pre-model-call and gives every other payload back
// unchanged for transform, and vetoes critical-risk work.
type hooks struct {
	hookv1.UnimplementedHookSubscriberServiceServer
	faults Faults
}

func registerHooks(s *grpc.Server, f Faults) {
	hookv1.RegisterHookSubscriberServiceServer(s, &hooks{faults: f})
}

// DispatchHook answers one firing in the shape its mode asks for.
func (h *hooks) DispatchHook(ctx context.Context, req *hookv1.DispatchHookRequest) (*hookv1.DispatchHookResponse, error) {
	payload := req.GetPayload()
	if payload.GetPayload() == nil || h.faults.HookRefusesAll {
		return nil, status.Error(codes.InvalidArgument, "no payload")
	}
	if payload.GetSessionStart() != nil && req.GetMode() == hookv1.HookMode_HOOK_MODE_OBSERVE {
		// Observing a session's start opens its audit trail, which takes a
		// moment; a cancel during it is normal control flow.
		select {
		case <-ctx.Done():
			if h.faults.HookCrashOnCancel {
				os.Exit(4) // the fault: a cancel takes the process down
			}
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	if h.faults.HookSlow {
		if payload.GetSessionEnd() != nil {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(30 * time.Second):
			}
		}
	}
	switch req.GetMode() {
	case hookv1.HookMode_HOOK_MODE_OBSERVE:
		if h.faults.HookWrongShape {
			return veto(hookv1.HookDecision_HOOK_DECISION_ALLOW), nil
		}
		return &hookv1.DispatchHookResponse{Outcome: &hookv1.DispatchHookResponse_Observe{Observe: &hookv1.DispatchHookResponse_ObserveAck{}}}, nil
	case hookv1.HookMode_HOOK_MODE_TRANSFORM:
		return &hookv1.DispatchHookResponse{Outcome: &hookv1.DispatchHookResponse_Transform{Transform: &hookv1.DispatchHookResponse_TransformResult{Payload: h.transform(payload)}}}, nil
	case hookv1.HookMode_HOOK_MODE_VETO:
		return veto(h.decide(payload)), nil
	}
	return nil, status.Errorf(codes.InvalidArgument, "unknown hook mode %v", req.GetMode())
}

func veto(d hookv1.HookDecision) *hookv1.DispatchHookResponse {
	return &hookv1.DispatchHookResponse{Outcome: &hookv1.DispatchHookResponse_Veto{Veto: &hookv1.DispatchHookResponse_VetoResult{Decision: d}}}
}

// transform changes only what the point allows: the messages at
// pre-model-call.
func (h *hooks) transform(in *hookv1.HookPayload) *hookv1.HookPayload {
	out := proto.Clone(in).(*hookv1.HookPayload)
	if pm := out.GetPreModelCall(); pm != nil {
		pm.Messages = append(pm.Messages, &contentv1.Message{
			Role:    contentv1.Role_ROLE_USER,
			Content: []*contentv1.ContentBlock{{Block: &contentv1.ContentBlock_Text{Text: &contentv1.TextBlock{Text: "(checked by conform-refplugin)"}}}},
		})
	}
	if ss := out.GetSessionStart(); ss != nil && h.faults.TransformImmutable {
		ss.SessionId += "-rewritten"
	}
	return out
}

// decide denies critical-risk work and allows everything else.
func (h *hooks) decide(p *hookv1.HookPayload) hookv1.HookDecision {
	if h.faults.VetoUnspecified && p.GetPlanReady() != nil {
		return hookv1.HookDecision_HOOK_DECISION_UNSPECIFIED
	}
	critical := toolv1.RiskClass_RISK_CLASS_CRITICAL
	if pr := p.GetPlanReady(); pr != nil {
		for _, it := range pr.GetPlan().GetItems() {
			if it.GetRisk() == critical {
				return hookv1.HookDecision_HOOK_DECISION_DENY
			}
		}
	}
	if pt := p.GetPreToolCall(); pt != nil && pt.GetPlanItem().GetRisk() == critical {
		return hookv1.HookDecision_HOOK_DECISION_DENY
	}
	return hookv1.HookDecision_HOOK_DECISION_ALLOW
}

// RegisterHookSubscriber registers the reference hook subscriber on s, for
// another reference plugin (the model provider) that declares hook points.
func RegisterHookSubscriber(s *grpc.Server) { registerHooks(s, Faults{}) }
