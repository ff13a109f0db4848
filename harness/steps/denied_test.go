package steps

import (
	"strings"
	"testing"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// The one denial rule (PROTOCOL.md §7.4): a call that never ran is denied
// when its result refuses it, flagged or with text; an empty or null
// result without is_error is a tool that ran with no output, in any
// kernel's spelling of an unset output.
func TestDeniedNeedsAResultThatRefuses(t *testing.T) {
	for _, tc := range []struct {
		res  wire.ContentBlock
		fail bool
	}{
		{wire.ContentBlock{Content: "denied by policy rule no", IsError: true}, false},
		{wire.ContentBlock{Content: "denied by policy rule no"}, false}, // plain text: the legal variant
		{wire.ContentBlock{IsError: true}, false},                       // the flag alone tells the model
		{wire.ContentBlock{}, true},
		{wire.ContentBlock{Content: " \n"}, true},
		{wire.ContentBlock{Content: "null"}, true},
		{wire.ContentBlock{Content: `""`}, true},
	} {
		s := &Scenario{World: fakes.NewWorld()}
		tc.res.ToolUseID = "call-1"
		err := s.denied("call-1", "write", &tc.res, "2")
		if (err != nil) != tc.fail {
			t.Errorf("result %+v: err %v, want failure %v", tc.res, err, tc.fail)
		}
		if err != nil && !strings.Contains(err.Error(), "without is_error") {
			t.Errorf("result %+v: the failure does not say why: %v", tc.res, err)
		}
	}
}
