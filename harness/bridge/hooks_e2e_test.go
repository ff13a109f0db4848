package bridge

import (
	"slices"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
)

// relayScenarios are the scenarios the test agents pass only through their
// own hook system and OTLP export, each with what carries it.
var relayScenarios = map[string]string{
	// TA-17: the agent's spans, named as its own and given roles by the
	// profile's span_roles, reach the harness through the OTLP receiver.
	"every turn can be rebuilt from its spans": "OTLP",
	// HD-11 at pre-tool-call (reading hooks.veto_points): the relay's deny
	// reaches the agent's PreToolUse hook, and the call never runs.
	"at a veto point the kernel declares besides plan-ready, a deny ends the chain and keeps the call from running": "relayed deny",
	// HD-03, HD-09: the bridge's chain aborts; the relay tells the agent
	// continue:false with a deny, and it stops with the status it declares.
	"a failing transform in the middle of a chain at pre-tool-call aborts it, and the hook_error names the middle one": "relayed abort",
	"no field is mutable at post-tool-call, so a one-byte change is an INVALID_RESPONSE":                               "relayed abort",
}

const relayTags = "@TA-17,@HD-03,@HD-09,@HD-11"

// The test agents of every dialect run the hook relay through their own
// hook system (Claude Code's settings hooks, as the bridge writes them for
// claude-code) and export their spans over OTLP, so the relay, the chain's
// abort told as a stop, and the receiver's role mapping are checked end to
// end without Node. The same agent that ignores its hooks and exports no
// spans fails every one of those scenarios: the checks see the difference.
func TestTestAgentsHooksAndSpansReachTheSuite(t *testing.T) {
	testrace.SkipUnderRace(t) // whole agent sessions: make e2e
	t.Parallel()
	for _, d := range []string{"anthropic", "openai-chat", "openai-responses", "gemini"} {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			r := suite(t, wiredProfile(t, d), relayTags)
			for name, via := range relayScenarios {
				if s := scenarioNamed(t, r, name); s.Status != report.Pass {
					t.Errorf("%s (%s): %s, want pass: %s\n%s", name, via, s.Status, s.Failure, checkLines(s))
				}
			}
		})
	}
	// Agents that get it wrong: no scenario passes for the one that drops
	// what carries it. An agent that runs no hooks leaves the abort
	// scenarios not reached (no chain ran); one that ignores continue:false
	// fails them (its turn went on).
	for _, c := range []struct {
		misbehave string
		otlp      bool
		broken    []string // what each of these agents drops
	}{
		{"ignore-hooks", false, []string{"OTLP", "relayed deny", "relayed abort"}},
		{"ignore-stop", true, []string{"relayed abort"}},
	} {
		t.Run(c.misbehave, func(t *testing.T) {
			t.Parallel()
			p := wiredProfile(t, "anthropic", "--misbehave", c.misbehave)
			for i, a := range p.Command {
				if a == "--otlp-url" && !c.otlp {
					p.Command = slices.Delete(p.Command, i, i+2)
					break
				}
			}
			r := suite(t, p, relayTags)
			for name, via := range relayScenarios {
				s := scenarioNamed(t, r, name)
				switch {
				case !slices.Contains(c.broken, via) && s.Status != report.Pass:
					t.Errorf("%s (%s) of an agent that keeps it: %s, want pass\n%s", name, via, s.Status, checkLines(s))
				case slices.Contains(c.broken, via) && s.Status == report.Pass, c.misbehave == "ignore-stop" && via == "relayed abort" && s.Status != report.Fail:
					t.Errorf("%s (%s) of an agent that drops it: %s\n%s", name, via, s.Status, checkLines(s))
				}
			}
		})
	}
}

func scenarioNamed(t *testing.T, r *report.Report, name string) report.ScenarioResult {
	t.Helper()
	for _, s := range r.Scenarios {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no scenario %q among %d selected by %s", name, len(r.Scenarios), relayTags)
	return report.ScenarioResult{}
}

func checkLines(s report.ScenarioResult) string {
	var out string
	for _, c := range s.Checks {
		out += "    " + string(c.Status) + " " + c.Step + ": " + c.Message + "\n"
	}
	return out
}
