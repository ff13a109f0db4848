package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/bridge/hookrelay"
	"github.com/agentconform/conform/harness/bridge/otlp"
	"github.com/agentconform/conform/harness/bridge/testagent"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
)

// The test binary doubles as the test agent: the profiles run
// "{conform} test-agent ...", and {conform} is this binary here.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "test-agent" {
		os.Exit(testagent.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "hook-relay" {
		os.Exit(hookrelay.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "connwatch-probe" {
		os.Exit(connWatchProbe())
	}
	if len(os.Args) > 1 && os.Args[1] == "isolation-probe" {
		proof, err := Isolation()
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println(proof)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// profile is the test agent of the dialect with MCP alone: its hooks and
// telemetry off, because every hook the agent runs is a process of this
// test binary (the relay), which under -race takes about a second to
// start, and the tests that use it are about sessions, not hooks.
// wiredProfile is the profile as its file says.
func profile(t *testing.T, dialect string, extra ...string) *Profile {
	t.Helper()
	p := wiredProfile(t, dialect, extra...)
	p.Hooks, p.SpanRoles = "", nil
	for _, flag := range []string{"--settings", "--otlp-url"} {
		if i := slices.Index(p.Command, flag); i >= 0 {
			p.Command = slices.Delete(p.Command, i, i+2)
		}
	}
	return p
}

func wiredProfile(t *testing.T, dialect string, extra ...string) *Profile {
	t.Helper()
	p, err := LoadProfile(filepath.Join("..", "..", "testdata", "profiles", "testagent-"+dialect+".json"))
	if err != nil {
		t.Fatal(err)
	}
	p.Command = append(p.Command, extra...)
	p.TimeoutS = 20
	return p
}

func suite(t *testing.T, p *Profile, tags string) *report.Report {
	t.Helper()
	return suiteJ(t, p, tags, 2)
}

// suiteJ runs with jobs kernels at once. They are all in this test
// process, which is the subreaper of every one of them: a daemon one
// agent abandons is adopted by the process, not by its kernel, so a test
// of daemons runs one kernel (conform agent runs each kernel in a process
// of its own).
func suiteJ(t *testing.T, p *Profile, tags string, jobs int) *report.Report {
	t.Helper()
	return suiteObserved(t, p, tags, jobs, false)
}

// suiteObserved is suiteJ, and with observed the bridge's observations
// reach the report as conform agent carries them (the observation file).
func suiteObserved(t *testing.T, p *Profile, tags string, jobs int, observed bool) *report.Report {
	t.Helper()
	return suiteIn(t, p, tags, jobs, observed, "")
}

// suiteIn is suiteObserved with the sessions' scratch folders under
// scratch ("": the system's temporary folder).
func suiteIn(t *testing.T, p *Profile, tags string, jobs int, observed bool, scratch string) *report.Report {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var w *ObservationWriter
	// Bridged as conform agent runs it: the bridge's readings are the
	// harness's own.
	opts := runner.Options{Tags: tags, Concurrency: jobs, ScenarioTimeout: 60 * time.Second, Bridged: true}
	if observed {
		path := filepath.Join(t.TempDir(), "obs.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w = NewObservationWriter(f)
		rd := NewObservationReader(path)
		opts.KernelObservations = func(id string) []report.Observation {
			var out []report.Observation
			for _, o := range rd.Take(id) {
				out = append(out, report.Observation{Subject: o.Subject, What: o.What})
			}
			return out
		}
	}
	opts.Launcher = kernelkit.Launcher("bridge", func() kernelkit.Kernel {
		return &Kernel{Profile: p, Conform: self, Version: "test", Observations: w, ScratchRoot: scratch}
	})
	r, err := runner.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Scenarios) == 0 {
		t.Fatalf("no scenario selected by %s", tags)
	}
	return r
}

// A well-behaved agent of every dialect reaches the scripted tools through
// MCP: the recorded log holds its model requests and tool invokes, and no
// scenario errs.
func TestAgentsOfEveryDialectRunThroughTheBridge(t *testing.T) {
	// Whole sessions of test agents, each a process of this race-built
	// binary: under -race they were most of make unit's wall time. They run
	// in make e2e; the bridge's concurrency stays race-tested by the
	// shorter agent tests below (issue 25).
	testrace.SkipUnderRace(t)
	// Parallel with the other tests that only run well-behaved sessions (at
	// most -parallel, GOMAXPROCS, at once): TestMisbehavingAgentsEndInAClearError,
	// which counts the processes left, is not parallel, so it runs alone
	// before them (issue 25: this package's tests mostly wait on agents).
	t.Parallel()
	for _, d := range []string{"anthropic", "openai-chat", "openai-responses", "gemini"} {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			r := suite(t, profile(t, d), "@TA-01")
			for _, s := range r.Scenarios {
				if s.Status == report.Error {
					t.Errorf("%s: error: %s", s.Name, s.Failure)
				}
			}
			joined := strings.Join(r.Scenarios[0].Log, "\n")
			if len(r.Scenarios[0].Log) > 0 && (!strings.Contains(joined, "model/stream") || !strings.Contains(joined, "invoke ")) {
				t.Errorf("log lacks model/stream or tool/invoke:\n%s", joined)
			}
		})
	}
}

// An agent that offers MCP tools by their bare names (Continue: tool_prefix
// "") reaches the session's tools: a name the session declares is the
// session's, the model's calls to it are invoked, and any other tool it
// offers is its own (an observation), not a tool of the recorded request.
// Before, "" was the default prefix, mcp__conform__: every bare tool was
// taken for the agent's own, and no scripted call was ever invoked.
func TestBareToolNamesAreTheSessions(t *testing.T) {
	testrace.SkipUnderRace(t) // whole agent sessions (see TestAgentsOfEveryDialectRunThroughTheBridge)
	t.Parallel()
	var p Profile
	if err := json.Unmarshal([]byte(`{"tool_prefix": ""}`), &p); err != nil || p.toolPrefix() != "" {
		t.Fatalf("tool_prefix \"\" reads as prefix %q (%v), want none", p.toolPrefix(), err)
	}
	if (&Profile{}).toolPrefix() != "mcp__conform__" {
		t.Fatalf("a profile without tool_prefix has prefix %q, want mcp__conform__", (&Profile{}).toolPrefix())
	}
	pr := profile(t, "openai-chat", "--tool-prefix", "", "--own-tool", "Read")
	pr.ToolPrefix = p.ToolPrefix
	r := suiteObserved(t, pr, "@TA-01", 2, true)
	invoked, own := false, false
	for _, s := range r.Scenarios {
		if s.Status == report.Error {
			t.Errorf("%s: error: %s", s.Name, s.Failure)
		}
		log := strings.Join(s.Log, "\n")
		invoked = invoked || strings.Contains(log, "invoke ")
		if strings.Contains(log, `"Read"`) {
			t.Errorf("%s: the agent's own tool Read reached the recorded log:\n%s", s.Name, log)
		}
		for _, o := range s.Observations {
			own = own || strings.Contains(o.What, "of its own") && strings.Contains(o.What, `"Read"`)
			if strings.Contains(o.What, "of its own") && !strings.Contains(o.What, `1 tool(s)`) {
				t.Errorf("%s: more than the agent's own tool taken for its own: %s", s.Name, o.What)
			}
		}
	}
	if !invoked {
		t.Error("no scripted call reached a tool/invoke: the bare-named session tools were not taken for the session's")
	}
	if !own {
		t.Error("no observation names Read as a tool of the agent's own")
	}
}

// Every misbehaviour ends the session in an error naming what the agent
// did, and no process of the agent is left.
func TestMisbehavingAgentsEndInAClearError(t *testing.T) {
	testrace.SkipUnderRace(t) // nine agent runs: make e2e (see TestAgentsOfEveryDialectRunThroughTheBridge)
	for _, tc := range []struct{ misbehave, want string }{
		{"bad-request", "does not allow"},
		{"exit-early", "exited (status 3) without its result line"},
		{"fork-helper", "(sleep 3600)), ended by the bridge"},
		// The daemon is named as the sweep finds it (sh, env, setsid or
		// sleep, by how far it got).
		{"daemon", "running after it exited"},
		{"hang", "hung"},
		{"flood", "flooded its output"},
		{"no-mcp", "opened no MCP session"},
		{"half-request", "exited (status 4) without its result line"},
		{"half-line", "exited (status 0) without its result line"},
	} {
		t.Run(tc.misbehave, func(t *testing.T) {
			p := profile(t, "anthropic", "--misbehave", tc.misbehave)
			switch tc.misbehave {
			case "hang":
				p.TimeoutS = 1
			case "flood":
				// A flood is judged by bytes, not time: a slow machine (the
				// race detector, 3 make steps at once) must still reach the
				// limit before the profile's time limit calls it a hang.
				p.TimeoutS = 600
			}
			jobs := 2
			if tc.misbehave == "daemon" {
				jobs = 1
			}
			r := suiteJ(t, p, "@TA-01", jobs)
			for _, s := range r.Scenarios {
				if s.Status != report.Error || !strings.Contains(s.Failure, tc.want) {
					t.Errorf("%s: %s %q, want error naming %q", s.Name, s.Status, s.Failure, tc.want)
				}
			}
			if left := agentProcesses(); len(left) > 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
}

// A call that is not a turn (a title request) is answered by the
// profile's rule, never reaches the harness as a model/stream, and is in
// the report as an observation of TA-01 (bridge observations travel beside
// the wire, through the observation file conform agent reads).
func TestNotTurnCallsAreObservationsInTheReport(t *testing.T) {
	t.Parallel() // see TestAgentsOfEveryDialectRunThroughTheBridge
	p := profile(t, "anthropic", "--title-call")
	p.NotTurns = []NotTurn{{Name: "title call", Match: "system_contains", Text: "Generate a title", Answer: "A title"}}
	r := suiteObserved(t, p, "@TA-01", 2, true)
	for _, s := range r.Scenarios {
		if strings.Contains(strings.Join(s.Log, "\n"), "Generate a title") {
			t.Errorf("%s: the title call reached the harness:\n%s", s.Name, strings.Join(s.Log, "\n"))
		}
		found := false
		for _, o := range s.Observations {
			found = found || o.Subject == "TA-01" && strings.Contains(o.What, "title call") && strings.Contains(o.What, "not counted as a turn")
		}
		if !found {
			t.Errorf("%s: no TA-01 observation of the title call in %+v", s.Name, s.Observations)
		}
	}
	found := false
	for _, o := range r.Observations {
		found = found || o.Subject == "TA-01"
	}
	if !found {
		t.Errorf("report observations lack the title call: %+v", r.Observations)
	}
}

// A process the profile declares as the agent's daemon (Cline's hub) is
// still ended, and reported as an observation instead of an error; one it
// does not declare stays an error (TestMisbehavingAgentsEndInAClearError).
func TestDeclaredDaemonIsAnObservation(t *testing.T) {
	testrace.SkipUnderRace(t) // whole agent sessions: make e2e
	p := profile(t, "anthropic", "--misbehave", "daemon")
	// The sweep names the daemon as it finds it (sh -c, env, setsid or
	// sleep): each of those command lines holds "sleep 3600".
	p.Daemons = []Daemon{{Match: "sleep 3600", Why: "the test agent's hub"}}
	r := suiteObserved(t, p, "@TA-01", 1, true)
	for _, s := range r.Scenarios {
		if s.Status == report.Error {
			t.Errorf("%s: error: %s", s.Name, s.Failure)
		}
		found := false
		for _, o := range s.Observations {
			found = found || o.Subject == SubjectBridge && strings.Contains(o.What, "as its profile declares (the test agent's hub)")
		}
		if !found {
			t.Errorf("%s: no observation of the declared daemon in %+v", s.Name, s.Observations)
		}
	}
	if left := agentProcesses(); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
}

// Every session gets a fresh home and temporary folder, removed when it
// ends: the leak-state agent fails when it finds what an earlier session
// of the same kernel left (two kernels run four scenarios here, so each
// kernel runs sessions one after another).
func TestNoStateLeaksBetweenSessions(t *testing.T) {
	t.Parallel() // see TestAgentsOfEveryDialectRunThroughTheBridge
	scratch := t.TempDir()
	r := suiteIn(t, profile(t, "anthropic", "--misbehave", "leak-state"), "@TA-01", 2, false, scratch)
	if len(r.Scenarios) < 3 {
		t.Fatalf("want several sessions, got %d", len(r.Scenarios))
	}
	for _, s := range r.Scenarios {
		if strings.Contains(s.Failure, "found state an earlier session left") {
			t.Errorf("%s: %s", s.Name, s.Failure)
		}
	}
	// What the agent wrote is gone with its scratch folder. Looked for
	// under this test's own root: another make test on the machine runs
	// this same agent, whose live session holds the file (seen with two
	// make tests side by side).
	left, err := filepath.Glob(filepath.Join(scratch, "conform-agent-*", "home", "conform-left-this"))
	if err != nil || len(left) > 0 {
		t.Errorf("state outlived its session: %v %v", left, err)
	}
}

func TestProfileCheck(t *testing.T) {
	for _, bad := range []Profile{
		{Name: "x", Dialect: "cobol", Command: []string{"a"}},
		{Name: "x", Dialect: "anthropic"},
		{Name: "x", Dialect: "anthropic", Command: []string{"{nope}"}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Files: map[string]string{"/etc/passwd": ""}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, NotTurns: []NotTurn{{Match: "sometimes", Answer: "x"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Result: Result{StatusMap: map[string]string{"success": "complete"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Result: Result{ExitStatusMap: map[string]string{"53": "turn_limit"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Result: Result{ExitStatusMap: map[string]string{"053": "error_max_turns"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Result: Result{ExitStatusMap: map[string]string{"256": "error_max_turns"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Glue: []wire.GlueNote{{Requirement: "TA-2", Reason: "x"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Glue: []wire.GlueNote{{Requirement: "TA-02"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Daemons: []Daemon{{Match: "hub"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, SpanRoles: []otlp.RoleRule{{Name: "x", Role: "wizard"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Hooks: "cline"},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Hooks: "opencode"},
		{Name: "x", Dialect: "anthropic", Command: []string{"a", "-e", "{mcp_extension}"}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, MCPExtension: "cline"},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, Hooks: "pi"},
	} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

// A status the profile's status_map does not map is the profile's gap: the
// session is an error naming the value, never the agent's "failed" (which
// a check would count against the agent).
func TestUnmappedStatusIsAnErrorOfTheBridge(t *testing.T) {
	t.Parallel() // see TestAgentsOfEveryDialectRunThroughTheBridge
	p := profile(t, "anthropic")
	delete(p.Result.StatusMap, "completed")
	r := suite(t, p, "@TA-01")
	for _, s := range r.Scenarios {
		if s.Status != report.Error || !strings.Contains(s.Failure, `status "completed" in its result line, which the profile's status_map does not map`) {
			t.Errorf("%s: %s %q, want an error naming the unmapped status", s.Name, s.Status, s.Failure)
		}
	}
}

// An exit status the profile maps (an agent's documented exit at a bound,
// as Qwen Code's 53) ends the session with that status, and what the agent
// did is judged; unmapped, the same exit is an error of the bridge naming
// it, never a verdict on the agent.
func TestMappedExitStatusEndsTheSession(t *testing.T) {
	testrace.SkipUnderRace(t) // agent runs: make e2e (see TestAgentsOfEveryDialectRunThroughTheBridge)
	t.Parallel()
	p := profile(t, "anthropic", "--misbehave", "exit-at-limit")
	r := suite(t, p, "@TA-01")
	for _, s := range r.Scenarios {
		if s.Status != report.Error || !strings.Contains(s.Failure, "exited (status 53) without its result line") {
			t.Errorf("unmapped: %s: %s %q, want an error naming the exit", s.Name, s.Status, s.Failure)
		}
	}
	p = profile(t, "anthropic", "--misbehave", "exit-at-limit")
	p.Result.ExitStatusMap = map[string]string{"53": wire.StatusErrorMaxTurns}
	r = suite(t, p, "@TA-10") // its scenarios check how the session ended
	named := false
	for _, s := range r.Scenarios {
		if s.Status == report.Error {
			t.Errorf("mapped: %s: error %q, want the session to end %q", s.Name, s.Failure, wire.StatusErrorMaxTurns)
		}
		named = named || strings.Contains(s.Failure, wire.StatusErrorMaxTurns)
	}
	if !named {
		t.Errorf("no verdict names the session's end %q: the mapped status did not reach the checks", wire.StatusErrorMaxTurns)
	}
}

// A profile's glue list reaches the initialize answer, and so the report's
// glue label: what the profile does for the agent is never counted as the
// agent's.
func TestProfileGlueReachesTheReport(t *testing.T) {
	t.Parallel() // see TestAgentsOfEveryDialectRunThroughTheBridge
	p := profile(t, "anthropic")
	p.Glue = []wire.GlueNote{{Requirement: "TA-01", Reason: "the profile's status_map reads the agent's ending"}}
	r := suite(t, p, "@TA-01")
	if got := r.Kernel.Glue["TA-01"]; got != p.Glue[0].Reason {
		t.Errorf("report glue for TA-01 = %q, want the profile's reason; glue map %v", got, r.Kernel.Glue)
	}
}

// Outside a namespace of its own (this machine's has more than lo) the
// isolation proof refuses; inside `unshare --net` it finds only lo.
func TestIsolationProof(t *testing.T) {
	if ifs, err := Interfaces(); err != nil || len(ifs) < 2 {
		t.Skipf("this namespace holds %v: nothing to refuse", ifs)
	}
	if _, err := Isolation(); err == nil || !strings.Contains(err.Error(), "not isolated") {
		t.Fatalf("Isolation() outside a namespace = %v, want a refusal", err)
	}
	if err := CanUnshareNet(); err != nil {
		t.Skip(err)
	}
	self, _ := os.Executable()
	out, err := exec.Command("unshare", "--net", "--", self, "isolation-probe").CombinedOutput()
	if err != nil {
		t.Fatalf("unshare: %v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "netns: interfaces lo" {
		t.Fatalf("inside the namespace: %q", got)
	}
}

// A result field is a dotted path; a segment into an array is an index,
// counted from the end when negative (pi's agent_end line holds every
// message of the run, the final answer last).
func TestResultFieldPaths(t *testing.T) {
	var line map[string]any
	if err := json.Unmarshal([]byte(`{"type":"agent_end","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"text","text":"The answer is 42."}]}],"usage":{"in":3}}`), &line); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{
		"messages.-1.content.0.text": "The answer is 42.",
		"messages.0.role":            "user",
		"usage.in":                   float64(3),
		"messages.2.role":            nil,
		"messages.-3.role":           nil,
		"messages.x.role":            nil,
		"type.0":                     nil,
		"":                           nil,
	} {
		if got := dig(line, path); got != want {
			t.Errorf("dig(%q) = %v, want %v", path, got, want)
		}
	}
}

// A profile's mcp_extension is written into the scratch folder as
// {mcp_extension}, pointed at the session's MCP server; the extension's
// own template literals are left alone.
func TestMCPExtensionIsWritten(t *testing.T) {
	r := &run{k: &Kernel{Profile: &Profile{Name: "pi", Dialect: "openai-chat", MCPExtension: "pi", Command: []string{"pi", "-e", "{mcp_extension}"}}}, dir: t.TempDir(), auxURL: "http://127.0.0.1:9"}
	vars, err := r.prepare()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(vars["{mcp_extension}"])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`const MCP_URL = "http://127.0.0.1:9/mcp";`, "conform MCP ${method}", `const PREFIX = "conform__";`, `const HOOK_URL = "http://127.0.0.1:9/hooks";`, `const RELAY_HOOKS = "" === "pi";`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the written extension lacks %q", want)
		}
	}
	r.k.Profile.Hooks = "pi"
	if vars, err = r.prepare(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(vars["{mcp_extension}"]); !strings.Contains(string(b), `const RELAY_HOOKS = "pi" === "pi";`) {
		t.Errorf("with hooks pi the extension does not relay them")
	}
}

// A profile may name more than one line that ends a run: opencode ends a
// failed run with an error line instead of its step_finish. The last line
// matching any of them is read; none matching leaves the run without a
// result (an error of the bridge naming both).
func TestResultLinesAlternatives(t *testing.T) {
	r := &run{k: &Kernel{Profile: &Profile{Name: "opencode", Result: Result{
		Line: map[string]string{"type": "step_finish"}, Lines: []map[string]string{{"type": "error"}},
		StatusField: "type", StatusMap: map[string]string{"step_finish": "completed", "error": "failed"},
	}}}}
	for _, c := range []struct {
		out  []string
		want string
	}{
		{[]string{`{"type":"step_start"}`, `{"type":"step_finish"}`}, wire.StatusCompleted},
		{[]string{`{"type":"step_start"}`, `{"type":"error","error":{"name":"APIError"}}`}, wire.StatusFailed},
		{[]string{`{"type":"error"}`, `{"type":"step_finish"}`, `not json`}, wire.StatusCompleted},
		{[]string{`{"type":"text"}`}, ""},
	} {
		res, ok := r.result(c.out)
		if ok != (c.want != "") || res.Status != c.want {
			t.Errorf("%q: status %q (found %v), want %q", c.out, res.Status, ok, c.want)
		}
	}
	if got := describeAll(r.k.Profile.Result.lines()); got != `a JSON line with type="step_finish" or a JSON line with type="error"` {
		t.Errorf("the missing result is described as %q", got)
	}
}

// An interactive tool the agent calls over MCP reaches the harness as the
// frontend/interactive a kernel sends for it (A-16 step 9b), never as a
// tool/invoke: before, the bridge invoked it as an ordinary tool, so the
// suite's interactive-request count and TA-19's "calls carried out" read
// the same call two ways.
func TestInteractiveCallsReachTheFrontend(t *testing.T) {
	testrace.SkipUnderRace(t) // whole agent sessions (see TestAgentsOfEveryDialectRunThroughTheBridge)
	t.Parallel()
	r := suite(t, profile(t, "openai-chat"), "@PA-07&&~@TA-14")
	for _, s := range r.Scenarios {
		if s.Status == report.Error {
			t.Fatalf("%s: error: %s", s.Name, s.Failure)
		}
		counted := false
		for _, c := range s.Checks {
			if strings.Contains(c.Step, "interactive requests for") {
				counted = true
				if c.Status != report.Pass {
					t.Errorf("%s: %q: %s %s", s.Name, c.Step, c.Status, c.Message)
				}
			}
		}
		if !counted {
			t.Errorf("%s: no check counted the interactive requests (checks: %+v)", s.Name, s.Checks)
		}
	}
}
