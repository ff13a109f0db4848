package pluginconform

import (
	"strings"
	"testing"

	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
)

// Valid arguments may fail, but never as invalid_arguments: that category
// says the input failed input_schema validation (PL-18's other side).
func TestValidArgumentsNeverInvalidArguments(t *testing.T) {
	errEv := func(c toolv1.ToolErrorCategory) outcome {
		return outcome{events: []*toolv1.ToolEvent{{Event: &toolv1.ToolEvent_Error{Error: &toolv1.ToolError{Category: c, Message: "no"}}}}}
	}
	for _, tc := range []struct {
		name string
		o    outcome
		fail bool
	}{
		{"invalid_arguments", errEv(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS), true},
		{"not_found", errEv(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_NOT_FOUND), false},
		{"execution_failed", errEv(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED), false},
	} {
		v := verdicts{}
		judgeValidAccepted(tc.o, v)
		msg, judged := v["PL-18"]
		if !judged {
			t.Fatalf("%s: PL-18 not judged", tc.name)
		}
		if (msg != "") != tc.fail || (tc.fail && !strings.Contains(msg, "input_schema")) {
			t.Errorf("%s: PL-18 %q, want failing %v", tc.name, msg, tc.fail)
		}
	}
	v := verdicts{}
	judgeValidAccepted(outcome{hung: true}, v)
	if _, judged := v["PL-18"]; judged {
		t.Error("a call that never ended judged PL-18")
	}
}
