package hookgen

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	hookv1 "github.com/agentconform/conform/api/gen/pluggableharness/hook/v1"
)

// Each point's generator makes its own variant, and an unchanged answer
// is always accepted.
func TestPayloadVariants(t *testing.T) {
	want := []string{"session_start", "pre_model_call", "post_model_response", "pre_tool_call", "plan_ready", "post_tool_call", "post_apply", "session_end"}
	for i, p := range Points() {
		rapid.Check(t, func(rt *rapid.T) {
			pl := Payload(p).Draw(rt, "payload")
			if Variant(pl) != want[i] {
				rt.Fatalf("%s made %s", p, Variant(pl))
			}
			if msg := Changed(pl, proto.Clone(pl).(*hookv1.HookPayload)); msg != "" {
				rt.Fatalf("an unchanged answer rejected: %s", msg)
			}
		})
	}
	if Payload(commonv1.HookPoint_HOOK_POINT_UNSPECIFIED) != nil {
		t.Error("a generator for HOOK_POINT_UNSPECIFIED")
	}
}

func TestChanged(t *testing.T) {
	pm := Payload(commonv1.HookPoint_HOOK_POINT_PRE_MODEL_CALL).Example(1)
	out := proto.Clone(pm).(*hookv1.HookPayload)
	out.GetPreModelCall().Messages = append(out.GetPreModelCall().Messages, &contentv1.Message{Id: "added"})
	if msg := Changed(pm, out); msg != "" {
		t.Errorf("messages are mutable at pre-model-call: %s", msg)
	}
	out.GetPreModelCall().GetModel().Id += "-other"
	if msg := Changed(pm, out); !strings.Contains(msg, "model") {
		t.Errorf("a changed model: %q", msg)
	}
	ss := Payload(commonv1.HookPoint_HOOK_POINT_SESSION_START).Example(2)
	out = proto.Clone(ss).(*hookv1.HookPayload)
	out.GetSessionStart().Profile += "x"
	if msg := Changed(ss, out); !strings.Contains(msg, "profile") {
		t.Errorf("a changed profile: %q", msg)
	}
	se := Payload(commonv1.HookPoint_HOOK_POINT_SESSION_END).Example(3)
	if msg := Changed(ss, se); !strings.Contains(msg, "session_end variant, not session_start") {
		t.Errorf("another variant: %q", msg)
	}
	if msg := Changed(ss, &hookv1.HookPayload{}); !strings.Contains(msg, "no payload") {
		t.Errorf("no payload: %q", msg)
	}
}
