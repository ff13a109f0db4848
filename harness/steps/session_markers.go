package steps

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Fakes that tell sessions apart (issue 29). When a fake tool answers
// every session alike, a kernel that hands one session's answer to another
// (a read cache keyed by tool and input, a result table shared by the
// tree) passes every check. Here a tool answers each call with a marker
// naming the session of the call (from its call context), and the check
// asserts that each session's model requests carry no other session's
// marker of that tool, and that each session that called it got its own.

// sessionMark is the marker a tool answers a session with.
func sessionMark(tool, session string) string { return "MARK[" + tool + "@" + session + "]" }

var sessionMarkRE = regexp.MustCompile(`MARK\[([^@\]]+)@([^\]]+)\]`)

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the tool "([^"]+)" answers each session with a marker naming that session$`), s.toolAnswersPerSession)
		sc.Step(stepRE(`^every session's model requests hold only their own session's "([^"]+)" markers$`), s.proves(s.ownMarkersOnly, "SA-09"))
	})
}

func (s *Scenario) toolAnswersPerSession(tool string) error {
	if _, err := s.tool(tool); err != nil {
		return err
	}
	s.World.Tools.Update(tool, func(b *fakes.ToolBehavior) {
		b.Respond = func(p wire.ToolInvokeParams) (*wire.ToolInvokeResult, error) {
			out, err := json.Marshal(map[string]any{"ok": true, "tool": p.Tool, "marker": sessionMark(p.Tool, p.CallContext.SessionID)})
			if err != nil {
				return nil, err
			}
			return &wire.ToolInvokeResult{Output: out}, nil
		}
	})
	return nil
}

func (s *Scenario) ownMarkersOnly(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	called := map[string]bool{} // sessions that invoked the tool
	seen := map[string]bool{}   // sessions whose model requests hold their own marker
	for _, e := range s.World.Log.Select(func(e *calllog.Entry) bool { return e.Kind == calllog.Request }) {
		switch p := e.Value.(type) {
		case wire.ToolInvokeParams:
			if p.Tool == tool {
				called[e.SessionID] = true
			}
		case wire.ModelStreamParams:
			b, err := json.Marshal(p.Messages)
			if err != nil {
				return err
			}
			// Markers sit inside a JSON string of a JSON string: unescape
			// the quotes the encodings added before matching.
			text := strings.ReplaceAll(string(b), `\`, "")
			for _, m := range sessionMarkRE.FindAllStringSubmatch(text, -1) {
				if m[1] != tool {
					continue
				}
				if m[2] != e.SessionID {
					return fmt.Errorf("model request #%d of session %s holds %q's answer to session %s (%s): one session's tool result reached another", e.Seq, e.SessionID, tool, m[2], m[0])
				}
				seen[e.SessionID] = true
			}
		}
	}
	if len(called) == 0 {
		return notReached("no session invoked %q, so no answer could reach the wrong session", tool)
	}
	var missing []string
	for id := range called {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		return fmt.Errorf("session(s) %s invoked %q but no later model request of theirs holds their own answer (%s)", strings.Join(missing, ", "), tool, sessionMark(tool, missing[0]))
	}
	return nil
}
