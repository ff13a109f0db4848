package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Sub-agents and RunSession (SA-01 … SA-16) and the cost roll-up over the
// session tree (TA-07).
//
// A spawn-capable fake tool calls session/spawn while its tool/invoke is in
// flight (fakes/spawn.go). Child sessions are told apart by their
// session_meta rows: a row that names a parent makes a child, and its model
// requests are answered from the script of the profile the row names. The
// tree the checks use is rebuilt from those rows alone (SA-05).

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc *godog.ScenarioContext) {
		// Setup.
		sc.Step(stepRE(`^a spawn-capable tool "([^"]+)" from provider "([^"]+)"$`), s.saSpawnTool)
		sc.Step(stepRE(`^sub-agents may nest (\d+) deep with at most (\d+) running per parent$`), s.saNest)
		sc.Step(stepRE(`^a sub-agent profile "([^"]+)" with no tools$`), func(name string) error { return s.saProfile(name, "") })
		sc.Step(stepRE(`^a sub-agent profile "([^"]+)" with tools? ("[^"]+"(?:(?:, | and )"[^"]+")*)$`), s.saProfile)
		sc.Step(stepRE(`^profile "([^"]+)" has max_depth (\d+)$`), s.saProfileDepth)
		sc.Step(stepRE(`^profile "([^"]+)" has a cost cap of \$(\S+)$`), s.saProfileCost)
		sc.Step(stepRE(`^profile "([^"]+)" has max_turns (\d+)$`), s.saProfileTurns)
		sc.Step(stepRE(`^profile "([^"]+)" forks the parent's history$`), s.saProfileFork)
		sc.Step(stepRE(`^the user's prompt mentions "([^"]+)"$`), func(m string) error { s.Prompt += " (" + m + ")"; return nil })
		sc.Step(stepRE(`^"([^"]+)" sub-agents answer request (\d+(?:st|nd|rd|th)?) with text "([^"]*)"(?: and calls? (.+))?$`), s.saAnswerText)
		sc.Step(stepRE(`^"([^"]+)" sub-agents answer request (\d+(?:st|nd|rd|th)?) with calls? (.+)$`), func(p, nth, calls string) error {
			return s.saAnswerText(p, nth, "", calls)
		})
		sc.Step(stepRE(`^"([^"]+)" sub-agents answer every request with a call to "([^"]+)" whose (\w+) changes each time$`), s.saAnswerEvery)
		sc.Step(stepRE(`^every reply to an? "([^"]+)" sub-agent uses (\d+) input tokens$`), func(p string, n int64) error {
			s.World.Agents.Model(p).EveryUsage(wire.Usage{InputTokens: n})
			return nil
		})
		sc.Step(stepRE(`^every reply to the root uses (\d+) input tokens$`), func(n int64) error {
			s.World.Model.EveryUsage(wire.Usage{InputTokens: n})
			return nil
		})
		sc.Step(stepRE(`^the first model request of each "([^"]+)" sub-agent is held until (\d+) of them wait together$`), s.saHoldTogether)
		sc.Step(stepRE(`^the first model request of the "([^"]+)" sub-agent is held unless the root moves past its apply step$`), s.saHoldSlow)
		sc.Step(stepRE(`^the harness cancels the session once the first model request of a "([^"]+)" sub-agent is held$`), s.saCancelOnHold)

		// Checks.
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild)'s first model request holds only its prompt$`), s.saOnlyPrompt)
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild)'s first model request contains (".+")$`), s.saFirstContains)
		sc.Step(stepRE(`^no request of an? "([^"]+)" sub-agent contains "([^"]+)"$`), s.saNoRequestContains)
		sc.Step(stepRE(`^no root model request contains "([^"]+)"$`), s.saRootNeverContains)
		sc.Step(stepRE(`^root model request (\d+) holds tool results saying (".+")$`), s.saRootResults)
		sc.Step(stepRE(`^root model request (\d+) offered "([^"]+)"$`), s.saRootOffered)
		sc.Step(stepRE(`^(\d+) "([^"]+)" sub-agents were in flight at the model together, never more$`), s.saInFlight)
		sc.Step(stepRE(`^(\d+) "([^"]+)" sub-agents? ended with status "([^"]+)"$`), s.saEndedWith)
		sc.Step(stepRE(`^the root's post-apply came after the "([^"]+)" sub-agent's session-end$`), s.saPostApplyAfter)
		sc.Step(stepRE(`^root model request (\d+) came after the "([^"]+)" sub-agent's session-end$`), s.saRequestAfter)
		sc.Step(stepRE(`^the session_meta rows rebuild the tree of the spawns$`), s.saTreeRebuilt)
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild)'s first model request offered "([^"]+)"$`), s.saFirstOffered)
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild)'s model requests never offered "([^"]+)"$`), s.saNeverOffered)
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild)'s model requests offered exactly ("[^"]+"(?:(?:, | and )"[^"]+")*)$`), s.saOfferedExactly)
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild)'s model requests offered no tools$`), func(p, rel string) error {
			return s.saOfferedExactly(p, rel, "")
		})
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild) never had "([^"]+)" invoked$`), s.saNeverInvoked)
		sc.Step(stepRE(`^(\d+) sub-agents? (?:was|were) started$`), s.saStarted)
		sc.Step(stepRE(`^every reported remaining depth follows the inheritance rule$`), s.saRemainingDepths)
		sc.Step(stepRE(`^the "([^"]+)" child's budget is the smaller of the root's remainder at spawn and its profile's cap$`), s.saChildBudget)
		sc.Step(stepRE(`^the "([^"]+)" child's own cost bound fired as soon as that budget was spent$`), s.saChildBoundFired)
		sc.Step(stepRE(`^the root's cost bound fired after the join, though its own replies cost under \$(\S+)$`), s.saRootBoundFired)
		sc.Step(stepRE(`^the spawn of the "([^"]+)" child was answered after it ended, with its status and the totals of its subtree$`), s.saSpawnAnswer)
		sc.Step(stepRE(`^the session's result totals cover every session of the tree$`), s.saRootTotals)
		sc.Step(stepRE(`^the tree had (\d+) sessions$`), s.saTreeSize)
		sc.Step(stepRE(`^every session of the tree ended with status "([^"]+)" in its session_meta row$`), s.saAllEnded)
		sc.Step(stepRE(`^every session of the tree fired session-end once, carrying "([^"]+)"$`), s.saAllSessionEnd)
		sc.Step(stepRE(`^no session of the tree sent a request after its end row$`), s.saNothingAfterEnd)
		sc.Step(stepRE(`^every spawn was answered with status "([^"]+)"$`), s.saSpawnsAnswered)
		sc.Step(stepRE(`^the "([^"]+)" child's end row carries its partial message "([^"]+)"$`), s.saPartialMessage)
		sc.Step(stepRE(`^every spawn that claimed another parent was refused$`), s.saClaimsRefused)
		sc.Step(stepRE(`^whether the live session tree is kept in kernel memory, without reading session files, is not verifiable from outside$`), func() error {
			s.Unverifiable = "SA-16: that cost roll-up, depth threading and cancellation work on an in-memory tree and never read session files " +
				"cannot be observed over the wire protocol; the mechanisms themselves are checked by the TA-07, SA-06 and SA-08 scenarios"
			return nil
		})
	})
}

// Timing of the holds. The grace windows are where a kernel that breaks the
// rule shows it (a third child starts, the parent moves on); a kernel that
// keeps the rule simply waits them out. They order nothing.
const (
	saGrace       = 500 * time.Millisecond
	saHoldTimeout = 3 * time.Second
	saCancelHold  = 4 * time.Second // the longest a held request waits for a cancellation
	saSettle      = 5 * time.Second // how long the harness waits for end rows after the run
)

// ---- setup ----

func (s *Scenario) saSubagents() *wire.Subagents {
	if s.Cfg.Subagents == nil {
		s.Cfg.Subagents = &wire.Subagents{MaxConcurrent: 4, MaxDepth: 1, Profiles: []wire.ChildProfile{}}
	}
	return s.Cfg.Subagents
}

func (s *Scenario) saSpawnTool(name, provider string) error {
	for _, t := range s.Cfg.Tools {
		if t.Name == name {
			return fmt.Errorf("tool %q is declared twice", name)
		}
	}
	// A resource with critical risk, like the reference spawn_subagent;
	// safe with no key fields, so that several spawns may overlap.
	s.Cfg.Tools = append(s.Cfg.Tools, wire.ToolSchema{
		Provider: provider, Name: name, Kind: wire.KindResource, Risk: "critical", SpawnCapable: true,
		Description: "Runs a sub-agent from a named profile with a prompt and returns its final message",
		Concurrency: &wire.ConcurrencySpec{Safe: true},
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"profile": map[string]any{"type": "string"}, "prompt": map[string]any{"type": "string"},
		}, "required": []any{"profile", "prompt"}},
	})
	s.World.Agents.SpawnCapable(name)
	return nil
}

func (s *Scenario) saNest(depth, concurrent int) error {
	sa := s.saSubagents()
	sa.MaxDepth, sa.MaxConcurrent = depth, concurrent
	return nil
}

func (s *Scenario) saProfile(name, tools string) error {
	sa := s.saSubagents()
	if slices.ContainsFunc(sa.Profiles, func(p wire.ChildProfile) bool { return p.Name == name }) {
		return fmt.Errorf("sub-agent profile %q is declared twice", name)
	}
	list := quotedList(tools)
	if list == nil {
		list = []string{}
	}
	sa.Profiles = append(sa.Profiles, wire.ChildProfile{Name: name, Tools: list})
	return nil
}

func (s *Scenario) saProfileRef(name string) (*wire.ChildProfile, error) {
	sa := s.saSubagents()
	for i := range sa.Profiles {
		if sa.Profiles[i].Name == name {
			return &sa.Profiles[i], nil
		}
	}
	return nil, fmt.Errorf("no sub-agent profile %q was declared", name)
}

func (s *Scenario) saProfileDepth(name string, d int) error {
	p, err := s.saProfileRef(name)
	if err == nil {
		p.MaxDepth = &d
	}
	return err
}

func (s *Scenario) saProfileCost(name, usd string) error {
	p, err := s.saProfileRef(name)
	if err != nil {
		return err
	}
	v, err := strconv.ParseFloat(usd, 64)
	if err == nil {
		p.MaxCostUSD = &v
	}
	return err
}

func (s *Scenario) saProfileTurns(name string, n int) error {
	p, err := s.saProfileRef(name)
	if err == nil {
		p.MaxTurns = &n
	}
	return err
}

func (s *Scenario) saProfileFork(name string) error {
	p, err := s.saProfileRef(name)
	if err == nil {
		p.ForkParentHistory = true
	}
	return err
}

func (s *Scenario) saAnswerText(profile, nth, text, calls string) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	r := fakes.Reply{Text: text}
	if calls != "" {
		if r.Calls, err = parseCalls(calls); err != nil {
			return err
		}
	}
	s.World.Agents.Model(profile).On(n, r)
	return nil
}

func (s *Scenario) saAnswerEvery(profile, tool, field string) error {
	s.World.Agents.Model(profile).Every(fakes.Reply{CallsFn: func(n int) []fakes.Call {
		in, _ := parseArgs(fmt.Sprintf(`%s "value-%d"`, field, n))
		return []fakes.Call{{Name: tool, Input: in}}
	}})
	return nil
}

func (s *Scenario) saHoldTogether(profile string, n int) error {
	s.World.Agents.Hold(profile, 1, &fakes.ModelHold{N: n, Grace: saGrace, Timeout: saHoldTimeout})
	return nil
}

// saHoldSlow holds the child for a grace window, or until the root shows it
// went on without waiting (its post-apply or its next model request).
func (s *Scenario) saHoldSlow(profile string) error {
	s.World.Agents.Hold(profile, 1, &fakes.ModelHold{Grace: saGrace, Early: func() bool {
		models := 0
		for _, e := range s.requests() {
			if p, ok := e.Value.(wire.HookDispatchParams); ok && p.Point == wire.PointPostApply {
				return true
			}
			if e.Method == wire.MethodModelStream {
				models++
			}
		}
		return models > 1
	}})
	return nil
}

func (s *Scenario) saCancelOnHold(profile string) error {
	s.World.Agents.Hold(profile, 1, &fakes.ModelHold{Grace: saCancelHold, OnArrive: func(string) {
		s.World.Agents.Cancel(s.SessionID)
	}})
	return nil
}

// ---- the tree, from session_meta rows ----

type saTree struct {
	root     string
	ids      []string // in order of their first row
	first    map[string]wire.SessionMeta
	end      map[string]wire.SessionMeta // the row that ended the session
	endSeq   map[string]int
	startSeq map[string]int
	ends     map[string]int // how many end rows
	parent   map[string]string
	level    map[string]int // from the parent chain: root 0, -1 when not under the root
}

func (s *Scenario) saTree() saTree {
	t := saTree{root: s.SessionID, first: map[string]wire.SessionMeta{}, end: map[string]wire.SessionMeta{},
		endSeq: map[string]int{}, startSeq: map[string]int{}, ends: map[string]int{}, parent: map[string]string{}, level: map[string]int{}}
	for _, e := range s.World.Log.Select(func(e *calllog.Entry) bool { return e.Method == wire.NotifySessionMeta }) {
		m, ok := e.Value.(wire.SessionMeta)
		if !ok {
			continue
		}
		if _, seen := t.first[m.SessionID]; !seen {
			t.ids = append(t.ids, m.SessionID)
			t.first[m.SessionID] = m
			t.startSeq[m.SessionID] = e.Seq
			t.parent[m.SessionID] = m.ParentSessionID
		}
		if m.Status != wire.StatusRunning {
			t.end[m.SessionID] = m
			t.endSeq[m.SessionID] = e.Seq
			t.ends[m.SessionID]++
		}
	}
	for _, id := range t.ids {
		lvl, cur := 0, id
		for cur != t.root && lvl <= len(t.ids) {
			p := t.parent[cur]
			if p == "" {
				lvl = -1
				break
			}
			cur, lvl = p, lvl+1
		}
		if lvl > len(t.ids) {
			lvl = -1
		}
		t.level[id] = lvl
	}
	return t
}

// members are the sessions under the root, the root included.
func (t saTree) members() []string {
	var out []string
	for _, id := range t.ids {
		if t.level[id] >= 0 {
			out = append(out, id)
		}
	}
	return out
}

// with lists the sessions of a profile at a level (-1: any level below the root).
func (t saTree) with(profile string, level int) []string {
	var out []string
	for _, id := range t.ids {
		l := t.level[id]
		if id == t.root || l < 0 || t.first[id].Profile != profile || (level >= 0 && l != level) {
			continue
		}
		out = append(out, id)
	}
	return out
}

// subtree is a session and its descendants.
func (t saTree) subtree(id string) []string {
	var out []string
	for _, x := range t.ids {
		for cur, n := x, 0; cur != "" && n <= len(t.ids); cur, n = t.parent[cur], n+1 {
			if cur == id {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

func saLevel(rel string) int {
	if rel == "grandchild" {
		return 2
	}
	return 1
}

// saOne finds the one session of a profile at a level.
func (s *Scenario) saOne(profile, rel string) (string, saTree, error) {
	if err := s.mustHaveRun(); err != nil {
		return "", saTree{}, err
	}
	t := s.saTree()
	ids := t.with(profile, saLevel(rel))
	if len(ids) != 1 {
		return "", t, fmt.Errorf("expected exactly one %q %s session (a session_meta row naming profile %q at depth %d below the root), the kernel reported %d: %v",
			profile, rel, profile, saLevel(rel), len(ids), ids)
	}
	return ids[0], t, nil
}

func (s *Scenario) saRequests(session, method string) []calllog.Entry {
	return s.World.Log.Select(func(e *calllog.Entry) bool {
		return e.Kind == calllog.Request && e.SessionID == session && (method == "" || e.Method == method)
	})
}

func (s *Scenario) saModel(session string) []wire.ModelStreamParams {
	var out []wire.ModelStreamParams
	for _, e := range s.saRequests(session, wire.MethodModelStream) {
		out = append(out, e.Value.(wire.ModelStreamParams))
	}
	return out
}

func (s *Scenario) saSpawnOf(child string) (fakes.Spawn, bool) {
	for _, sp := range s.World.Agents.Spawns() {
		if sp.Answered && sp.Err == nil && sp.Result.SessionID == child {
			return sp, true
		}
	}
	return fakes.Spawn{}, false
}

func toolNames(r wire.ModelStreamParams) []string {
	out := []string{}
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// ---- checks: context isolation (SA-01, SA-02, SA-09, SA-12) ----

// SA-01: the child's first request has its prompt as its only user content,
// no assistant turn and no tool traffic.
func (s *Scenario) saOnlyPrompt(profile, rel string) error {
	id, _, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	sp, ok := s.saSpawnOf(id)
	if !ok {
		return fmt.Errorf("no session/spawn was answered with session %s", id)
	}
	reqs := s.saModel(id)
	if len(reqs) == 0 {
		return fmt.Errorf("the %q %s (%s) sent no model request", profile, rel, id)
	}
	var users []string
	for _, m := range reqs[0].Messages {
		for _, c := range m.Content {
			switch {
			case m.Role == "assistant":
				return fmt.Errorf("the first model request of %s already holds an assistant message: %s", id, saJSON(m))
			case c.Type == wire.BlockToolUse || c.Type == wire.BlockToolResult:
				return fmt.Errorf("the first model request of %s holds tool traffic: %s", id, saJSON(c))
			case m.Role == "user" && c.Type == wire.BlockText:
				users = append(users, c.Text)
			}
		}
	}
	if len(users) != 1 || users[0] != sp.Params.Prompt {
		return fmt.Errorf("expected the first model request of %s to hold only its prompt %q as user content, it held %q",
			id, sp.Params.Prompt, users)
	}
	return nil
}

// SA-02: a forked child's first request carries the parent's history.
func (s *Scenario) saFirstContains(profile, rel, list string) error {
	id, first, err := s.saFirstRequest(profile, rel)
	if err != nil {
		return err
	}
	msgs := saJSON(first.Messages)
	for _, want := range quotedList(list) {
		if !strings.Contains(msgs, want) {
			return fmt.Errorf("expected the first model request of %s to carry %q in its messages; they were %s", id, want, msgs)
		}
	}
	return nil
}

// SA-01, SA-09: a marker never reaches a session of a profile, in any of
// its requests (messages, assembled context, hook payloads).
func (s *Scenario) saNoRequestContains(profile, marker string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.saTree().with(profile, -1)
	if len(ids) == 0 {
		return fmt.Errorf("no %q sub-agent was started (no session_meta row names that profile under the root)", profile)
	}
	for _, id := range ids {
		reqs := s.saRequests(id, "")
		if len(reqs) == 0 {
			return fmt.Errorf("the %q sub-agent %s sent no request at all", profile, id)
		}
		for _, e := range reqs {
			if strings.Contains(string(e.Params), marker) {
				return fmt.Errorf("%q reached the %q sub-agent %s in its request #%d (%s)", marker, profile, id, e.Seq, e.Label)
			}
		}
	}
	return nil
}

// SA-12: the child's intermediate turns never reach the parent's model.
func (s *Scenario) saRootNeverContains(marker string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for i, r := range s.modelRequests() {
		if strings.Contains(saJSON(r), marker) {
			return fmt.Errorf("root model request %d carries %q, which only the child's intermediate turns held", i+1, marker)
		}
	}
	return nil
}

// SA-04, SA-12: the children's final messages come back as tool results.
func (s *Scenario) saRootResults(nth, list string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	var results []string
	for _, m := range r.Messages {
		for _, c := range m.Content {
			if c.Type == wire.BlockToolResult {
				results = append(results, c.Content)
			}
		}
	}
	for _, want := range quotedList(list) {
		if !slices.ContainsFunc(results, func(r string) bool { return strings.Contains(r, want) }) {
			return fmt.Errorf("expected a tool result saying %q in root model request %s; its tool results were %q", want, nth, results)
		}
	}
	return nil
}

// ---- checks: tools and depth (SA-06, SA-07, SA-10, SA-15) ----

func (s *Scenario) saRootOffered(nth, tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	if !slices.Contains(toolNames(r), tool) {
		return fmt.Errorf("expected root model request %s to offer %q, it offered %q", nth, tool, toolNames(r))
	}
	return nil
}

func (s *Scenario) saFirstOffered(profile, rel, tool string) error {
	id, first, err := s.saFirstRequest(profile, rel)
	if err != nil {
		return err
	}
	if !slices.Contains(toolNames(first), tool) {
		return fmt.Errorf("expected the first model request of %s to offer %q, it offered %q", id, tool, toolNames(first))
	}
	return nil
}

func (s *Scenario) saNeverOffered(profile, rel, tool string) error {
	id, _, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	reqs := s.saModel(id)
	if len(reqs) == 0 {
		return fmt.Errorf("the %q %s (%s) sent no model request", profile, rel, id)
	}
	for i, r := range reqs {
		if slices.Contains(toolNames(r), tool) {
			return fmt.Errorf("model request %d of %s offered %q, which that session must not have (it offered %q)", i+1, id, tool, toolNames(r))
		}
	}
	return nil
}

// SA-15: the ordinary turns offer exactly the profile's tools (a
// final-answer request offers none and is left out).
func (s *Scenario) saOfferedExactly(profile, rel, list string) error {
	id, _, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	want := quotedList(list)
	if want == nil {
		want = []string{}
	}
	sort.Strings(want)
	n := 0
	for i, r := range s.saModel(id) {
		if r.Purpose == wire.PurposeFinalAnswer {
			continue
		}
		n++
		got := toolNames(r)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			return fmt.Errorf("expected model request %d of %s to offer exactly %q, it offered %q", i+1, id, want, got)
		}
	}
	if n == 0 {
		return fmt.Errorf("the %q %s (%s) sent no ordinary model request", profile, rel, id)
	}
	return nil
}

// SA-06, SA-07: a call to a tool the session lacks is never executed.
func (s *Scenario) saNeverInvoked(profile, rel, tool string) error {
	id, _, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	for _, e := range s.saRequests(id, wire.MethodToolInvoke) {
		if e.Value.(wire.ToolInvokeParams).Tool == tool {
			return fmt.Errorf("%s invoked %q (#%d), a tool it was never offered", id, tool, e.Seq)
		}
	}
	for _, sp := range s.World.Agents.Spawns() {
		if sp.Session == id {
			return fmt.Errorf("%s spawned a child (profile %q) although it has no spawn tool", id, sp.Params.Profile)
		}
	}
	return nil
}

func (s *Scenario) saStarted(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saTree()
	var kids []string
	for _, id := range t.ids {
		if id != t.root {
			kids = append(kids, fmt.Sprintf("%s (%s)", id, t.first[id].Profile))
		}
	}
	if len(kids) != n {
		return fmt.Errorf("expected %d sub-agent sessions, the kernel reported session_meta rows for %d: %v", n, len(kids), kids)
	}
	return nil
}

// SA-06: each reported remaining_depth is min(parent − 1, profile
// max_depth, the caller's hint), the root's max_depth (§3.7). The field is
// optional: a row without it is not checked; the depth budget is then seen
// only through which sessions are offered the spawn tool.
func (s *Scenario) saRemainingDepths() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saTree()
	want := map[string]int{}
	rootDepth := 1
	if s.Cfg.Subagents != nil {
		rootDepth = s.Cfg.Subagents.MaxDepth
	} else if d, err := strconv.Atoi(s.env.Info.Readings["max_depth.default"]); err == nil {
		rootDepth = d
	}
	want[t.root] = rootDepth
	for _, id := range t.ids {
		if t.level[id] < 0 {
			continue
		}
		if id != t.root {
			p, ok := want[t.parent[id]]
			if !ok {
				continue
			}
			d := p - 1
			if prof, err := s.saProfileRef(t.first[id].Profile); err == nil && prof.MaxDepth != nil {
				d = min(d, *prof.MaxDepth)
			}
			if sp, ok := s.saSpawnOf(id); ok && sp.Params.RemainingDepth != nil {
				d = min(d, *sp.Params.RemainingDepth)
			}
			want[id] = d
		}
		if r := t.first[id].RemainingDepth; r != nil {
			if *r != want[id] {
				return fmt.Errorf("session %s reports remaining_depth %d; inheritance from its parent gives %d", id, *r, want[id])
			}
		}
	}
	return nil
}

// ---- checks: concurrency and join (SA-03, SA-04) ----

// SA-03: the most sessions of a profile with a model request open at once.
func (s *Scenario) saInFlight(n int, profile string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.saTree().with(profile, -1)
	type mark struct {
		seq   int
		delta int
	}
	var marks []mark
	for _, id := range ids {
		for _, e := range s.saRequests(id, wire.MethodModelStream) {
			end := e.EndSeq
			if end == 0 {
				end = math.MaxInt
			}
			marks = append(marks, mark{e.Seq, 1}, mark{end, -1})
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].seq < marks[j].seq })
	cur, most := 0, 0
	for _, m := range marks {
		cur += m.delta
		most = max(most, cur)
	}
	if most != n {
		msg := fmt.Sprintf("expected %d %q sub-agents to have a model request in flight at once (and never more), the most at once was %d (%d such sub-agents in all)", n, profile, most, len(ids))
		if h := s.World.Agents.HoldOf(profile, 1); h != nil && h.TimedOut() && most < n {
			msg += fmt.Sprintf("; the held first requests never reached %d together within %v", n, saHoldTimeout)
		}
		return errors.New(msg)
	}
	return nil
}

func (s *Scenario) saEndedWith(n int, profile, status string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saTree()
	ids := t.with(profile, -1)
	var got []string
	for _, id := range ids {
		got = append(got, id+": "+t.end[id].Status)
	}
	count := 0
	for _, id := range ids {
		if t.end[id].Status == status && t.end[id].EndedAt != "" {
			count++
		}
	}
	if len(ids) != n || count != n {
		return fmt.Errorf("expected %d %q sub-agents, each ending with status %q (end session_meta row with ended_at), the kernel reported %v", n, profile, status, got)
	}
	return nil
}

// saSessionEnd is the seq of a session's session-end dispatch.
func (s *Scenario) saSessionEnd(profile string) (int, string, error) {
	if err := s.mustHaveRun(); err != nil {
		return 0, "", err
	}
	ids := s.saTree().with(profile, -1)
	if len(ids) != 1 {
		return 0, "", fmt.Errorf("expected one %q sub-agent, the kernel reported %d", profile, len(ids))
	}
	for _, e := range s.saRequests(ids[0], wire.MethodHookDispatch) {
		if e.Value.(wire.HookDispatchParams).Point == wire.PointSessionEnd {
			return e.Seq, ids[0], nil
		}
	}
	return 0, ids[0], fmt.Errorf("no session-end dispatch was recorded for %s (the scenario subscribes to session-end)", ids[0])
}

// SA-04: the parent's post-apply comes after the slow child ended.
func (s *Scenario) saPostApplyAfter(profile string) error {
	end, id, err := s.saSessionEnd(profile)
	if err != nil {
		return err
	}
	d := s.dispatchesAt(wire.PointPostApply)
	if len(d) == 0 {
		return fmt.Errorf("the root dispatched no post-apply (the scenario subscribes to it)")
	}
	if d[0].Seq < end {
		return fmt.Errorf("the root's post-apply (#%d) came before the session-end of its child %s (#%d): the parent went on before every child returned", d[0].Seq, id, end)
	}
	return nil
}

func (s *Scenario) saRequestAfter(nth, profile string) error {
	end, id, err := s.saSessionEnd(profile)
	if err != nil {
		return err
	}
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	var seqs []int
	for _, e := range s.requests() {
		if e.Method == wire.MethodModelStream {
			seqs = append(seqs, e.Seq)
		}
	}
	if len(seqs) < n {
		return fmt.Errorf("expected at least %d root model requests, the kernel sent %d", n, len(seqs))
	}
	if seqs[n-1] < end {
		return fmt.Errorf("root model request %d (#%d) came before the session-end of its child %s (#%d)", n, seqs[n-1], id, end)
	}
	return nil
}

// ---- checks: bookkeeping (SA-05, SA-13) ----

// saTreeRebuilt rebuilds the tree from the session_meta rows alone and
// compares it with the spawns the harness made: every child has a row
// naming its spawner as parent and the spawned profile, scanning rows by
// parent finds exactly each session's children, the root's row has no
// parent, and depth is consistent under the kernel's depth.meaning.
func (s *Scenario) saTreeRebuilt() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saTree()
	root, ok := t.first[t.root]
	if !ok {
		return fmt.Errorf("no session_meta row for the root %s", t.root)
	}
	if root.ParentSessionID != "" {
		return fmt.Errorf("the root's session_meta row names a parent, %q", root.ParentSessionID)
	}
	spawned := map[string]fakes.Spawn{}
	for _, sp := range s.World.Agents.Spawns() {
		if sp.Answered && sp.Err == nil && !sp.Claimed {
			spawned[sp.Result.SessionID] = sp
		}
	}
	if len(spawned) == 0 {
		return fmt.Errorf("no spawn was answered with a child session")
	}
	for child, sp := range spawned {
		row, ok := t.first[child]
		switch {
		case !ok:
			return fmt.Errorf("no session_meta row for child %s (spawned by %s)", child, sp.Session)
		case row.ParentSessionID != sp.Session:
			return fmt.Errorf("child %s was spawned by %s, its session_meta row names %q as parent", child, sp.Session, row.ParentSessionID)
		case row.Profile != sp.Params.Profile:
			return fmt.Errorf("child %s was spawned with profile %q, its session_meta row names %q", child, sp.Params.Profile, row.Profile)
		case t.ends[child] != 1:
			return fmt.Errorf("child %s has %d end rows, expected one", child, t.ends[child])
		}
	}
	for _, id := range t.ids {
		if _, ok := spawned[id]; id != t.root && !ok {
			return fmt.Errorf("session %s has a session_meta row but came from no spawn the harness made", id)
		}
		var byScan, bySpawn []string
		for _, x := range t.ids {
			if t.parent[x] == id {
				byScan = append(byScan, x)
			}
		}
		for child, sp := range spawned {
			if sp.Session == id {
				bySpawn = append(bySpawn, child)
			}
		}
		sort.Strings(byScan)
		sort.Strings(bySpawn)
		if !slices.Equal(byScan, bySpawn) {
			return fmt.Errorf("scanning session_meta rows for parent %s finds %v, the spawns from that session made %v", id, byScan, bySpawn)
		}
	}
	remaining := s.env.Info.Readings["depth.meaning"] == "remaining"
	if !remaining && root.Depth != 0 {
		return fmt.Errorf("the root's depth is %d; under depth.meaning %q it is 0", root.Depth, "tree")
	}
	for child := range spawned {
		c, p := t.first[child], t.first[t.parent[child]]
		switch {
		case remaining && c.Depth >= p.Depth:
			return fmt.Errorf("depth of %s is %d, not below its parent's %d (depth.meaning remaining)", child, c.Depth, p.Depth)
		case !remaining && c.Depth != p.Depth+1:
			return fmt.Errorf("depth of %s is %d, its parent's is %d (depth.meaning tree: one more than the parent)", child, c.Depth, p.Depth)
		}
	}
	return nil
}

// ---- checks: cost over the tree (TA-07, SA-10, SA-11) ----

type saCost struct {
	seq     int
	session string
	usd     float64
	in, out int64
}

func (s *Scenario) saCosts() []saCost {
	var out []saCost
	for _, e := range s.World.Log.Select(func(e *calllog.Entry) bool { return e.Method == wire.NotifyCostUsage }) {
		if c, ok := e.Value.(wire.CostUsage); ok {
			out = append(out, saCost{e.Seq, c.SessionID, c.CostUSD, c.Usage.InputTokens, c.Usage.OutputTokens})
		}
	}
	return out
}

func saSum(costs []saCost, in []string, before int) (usd float64) {
	for _, c := range costs {
		if slices.Contains(in, c.session) && (before == 0 || c.seq < before) {
			usd += c.usd
		}
	}
	return usd
}

func saClose(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// saBudget is what a child's budget must be: the smaller of the root's
// remainder when the child started and its profile's cap (§3.2).
func (s *Scenario) saBudget(profile string) (string, saTree, float64, error) {
	id, t, err := s.saOne(profile, "child")
	if err != nil {
		return "", t, 0, err
	}
	if s.Cfg.Bounds.MaxCostUSD == nil {
		return "", t, 0, fmt.Errorf("the scenario sets no cost bound on the root")
	}
	spent := saSum(s.saCosts(), t.members(), t.startSeq[id])
	budget := *s.Cfg.Bounds.MaxCostUSD - spent
	if prof, err := s.saProfileRef(profile); err == nil && prof.MaxCostUSD != nil {
		budget = min(budget, *prof.MaxCostUSD)
	}
	return id, t, budget, nil
}

// TA-07 (a): the child's reported budget is min(root's remainder, cap),
// where the kernel reports it (remaining_cost_budget_usd is optional).
func (s *Scenario) saChildBudget(profile string) error {
	id, t, budget, err := s.saBudget(profile)
	if err != nil {
		return err
	}
	got := t.first[id].RemainingCostBudgetUSD
	if got == nil {
		// The field is optional: the budget is then checked only through
		// the moment the child's bound fires (the next step).
		return nil
	}
	if !saClose(*got, budget) {
		return fmt.Errorf("%s started with a budget of $%.9f; the root's remainder at spawn, capped by the profile, was $%.9f", id, *got, budget)
	}
	return nil
}

// TA-07 (b), SA-10: the child's bound fires at the step 17 of the first
// turn by whose end its subtree had spent the budget; exactly one
// final-answer request follows, and the child ends error_max_budget_usd.
func (s *Scenario) saChildBoundFired(profile string) error {
	id, t, budget, err := s.saBudget(profile)
	if err != nil {
		return err
	}
	costs := s.saCosts()
	sub := t.subtree(id)
	reqs := s.saRequests(id, wire.MethodModelStream)
	k := 0
	for j := 1; j <= len(reqs); j++ {
		before := 0
		if j < len(reqs) {
			before = reqs[j].Seq
		}
		if saSum(costs, sub, before) >= budget-1e-12 {
			k = j
			break
		}
	}
	if k == 0 {
		return fmt.Errorf("%s never spent its budget of $%.6f (it spent $%.6f over %d requests)", id, budget, saSum(costs, sub, 0), len(reqs))
	}
	if len(reqs) != k+1 {
		return fmt.Errorf("%s had spent its budget of $%.6f by the end of turn %d, so its bound fires there and exactly one final-answer request follows (%d requests); it sent %d",
			id, budget, k, k+1, len(reqs))
	}
	if last := reqs[k].Value.(wire.ModelStreamParams); len(last.Tools) != 0 {
		return fmt.Errorf("the last model request of %s still offered tools %q: no final-answer turn", id, toolNames(last))
	}
	if st := t.end[id].Status; st != wire.StatusErrorMaxBudgetUSD {
		return fmt.Errorf("%s ended with status %q, expected %q", id, st, wire.StatusErrorMaxBudgetUSD)
	}
	return nil
}

// TA-07 (c): the root fires at its next step 17 after the join although
// its own spending stayed under the bound.
func (s *Scenario) saRootBoundFired(under string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	limit, err := strconv.ParseFloat(under, 64)
	if err != nil {
		return err
	}
	t := s.saTree()
	own := saSum(s.saCosts(), []string{t.root}, 0)
	if own >= limit {
		return fmt.Errorf("the root's own replies cost $%.6f, not under $%s: the scenario does not isolate the roll-up", own, under)
	}
	if s.Result.Status != wire.StatusErrorMaxBudgetUSD {
		return fmt.Errorf("expected the root to end %q once its descendants' spending used up its budget, it ended %q", wire.StatusErrorMaxBudgetUSD, s.Result.Status)
	}
	reqs := s.requests()
	var models []calllog.Entry
	for _, e := range reqs {
		if e.Method == wire.MethodModelStream {
			models = append(models, e)
		}
	}
	if len(models) != 2 {
		return fmt.Errorf("expected the root's bound to fire at step 17 of the spawning turn, then one final-answer request (2 model requests), the root sent %d", len(models))
	}
	last := models[1].Value.(wire.ModelStreamParams)
	if len(last.Tools) != 0 {
		return fmt.Errorf("the root's second model request offered tools %q: no final-answer turn", toolNames(last))
	}
	for _, id := range t.members() {
		if id != t.root && t.endSeq[id] > models[1].Seq {
			return fmt.Errorf("the root's final-answer request (#%d) came before its descendant %s ended (#%d)", models[1].Seq, id, t.endSeq[id])
		}
	}
	return nil
}

// saUsage sums what the fake model reported for a set of sessions.
func (s *Scenario) saUsage(ids []string) (in, out int64) {
	for _, e := range s.World.Log.Select(func(e *calllog.Entry) bool {
		return e.Kind == calllog.Request && e.Method == wire.MethodModelStream && slices.Contains(ids, e.SessionID)
	}) {
		var r wire.ModelStreamResult
		_ = json.Unmarshal(e.Result, &r)
		for _, ev := range r.Events {
			if ev.Type == wire.EventUsage && ev.Usage != nil {
				in += ev.Usage.InputTokens
				out += ev.Usage.OutputTokens
			}
		}
	}
	return in, out
}

func (s *Scenario) saTotals(what string, res wire.RunSessionResult, ids []string) error {
	usd := saSum(s.saCosts(), ids, 0)
	in, out := s.saUsage(ids)
	if !saClose(res.TotalCostUSD, usd) || res.TotalInputTokens != in || res.TotalOutputTokens != out {
		return fmt.Errorf("%s reports $%.9f, %d input and %d output tokens; its sessions %v spent $%.9f (sum of cost reports) on %d input and %d output tokens (the fake model's usage)",
			what, res.TotalCostUSD, res.TotalInputTokens, res.TotalOutputTokens, ids, usd, in, out)
	}
	return nil
}

// SA-11: the spawn answer comes after the child is terminal, with its
// status and the totals of its whole subtree.
func (s *Scenario) saSpawnAnswer(profile string) error {
	id, t, err := s.saOne(profile, "child")
	if err != nil {
		return err
	}
	sp, ok := s.saSpawnOf(id)
	if !ok {
		return fmt.Errorf("no session/spawn was answered with session %s", id)
	}
	end, ok := t.end[id]
	switch {
	case !ok:
		return fmt.Errorf("%s has no end session_meta row", id)
	case sp.Result.Status == wire.StatusRunning || sp.Result.Status != end.Status:
		return fmt.Errorf("the spawn of %s was answered with status %q, its end session_meta row says %q", id, sp.Result.Status, end.Status)
	}
	for _, e := range s.World.Log.Entries() {
		if e.Seq == sp.Seq && e.EndSeq < t.endSeq[id] {
			return fmt.Errorf("the spawn of %s was answered (#%d) before the child ended (its end row is #%d)", id, e.EndSeq, t.endSeq[id])
		}
	}
	if fakes.MessageText(sp.Result.FinalMessage) != fakes.MessageText(end.FinalMessage) {
		return fmt.Errorf("the spawn of %s was answered with final message %q, its end row holds %q", id,
			fakes.MessageText(sp.Result.FinalMessage), fakes.MessageText(end.FinalMessage))
	}
	return s.saTotals("the spawn answer of "+id, sp.Result, t.subtree(id))
}

func (s *Scenario) saRootTotals() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	return s.saTotals("the session/run result", s.Result, s.saTree().members())
}

// ---- checks: cancellation (SA-08, SA-14) ----

// saSettled waits, boundedly, until every session of the tree has its end
// row: a kernel may answer the root before its descendants' rows arrive.
func (s *Scenario) saSettled() saTree {
	deadline := time.Now().Add(saSettle)
	for {
		t := s.saTree()
		open := false
		for _, id := range t.members() {
			if t.ends[id] == 0 {
				open = true
			}
		}
		if !open || time.Now().After(deadline) {
			return t
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *Scenario) saTreeSize(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if got := s.saTree().members(); len(got) != n {
		return fmt.Errorf("expected %d sessions in the tree (root included), the kernel reported %v", n, got)
	}
	return nil
}

func (s *Scenario) saAllEnded(status string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saSettled()
	for _, id := range t.members() {
		e, ok := t.end[id]
		switch {
		case !ok:
			return fmt.Errorf("session %s has no end session_meta row %v after the root ended: it is still running", id, saSettle)
		case e.Status != status:
			return fmt.Errorf("session %s ended with status %q in its session_meta row, expected %q", id, e.Status, status)
		case e.EndedAt == "":
			return fmt.Errorf("the end session_meta row of %s has no ended_at", id)
		}
	}
	return nil
}

func (s *Scenario) saAllSessionEnd(status string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saSettled()
	for _, id := range t.members() {
		subs := map[string]int{}
		for _, e := range s.saRequests(id, wire.MethodHookDispatch) {
			p := e.Value.(wire.HookDispatchParams)
			if p.Point != wire.PointSessionEnd {
				continue
			}
			subs[p.Subscriber]++
			if p.Payload.Status != status {
				return fmt.Errorf("the session-end dispatch of %s (#%d) carries status %q, expected %q", id, e.Seq, p.Payload.Status, status)
			}
		}
		if len(subs) == 0 {
			return fmt.Errorf("session %s never dispatched session-end", id)
		}
		for sub, n := range subs {
			if n != 1 {
				return fmt.Errorf("session %s dispatched session-end to %q %d times", id, sub, n)
			}
		}
	}
	return nil
}

// SA-08: nothing is left running: no session sent a request after its own
// end row, and none is sent during a short quiet window afterwards.
func (s *Scenario) saNothingAfterEnd() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saSettled()
	quiet := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(quiet) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, id := range t.members() {
		end := t.endSeq[id]
		if end == 0 {
			return fmt.Errorf("session %s never ended", id)
		}
		for _, e := range s.saRequests(id, "") {
			if e.Seq > end {
				return fmt.Errorf("session %s sent %q (#%d) after its end row (#%d): it was still running", id, e.Label, e.Seq, end)
			}
		}
	}
	return nil
}

func (s *Scenario) saSpawnsAnswered(status string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	deadline := time.Now().Add(saSettle)
	for {
		sps := s.World.Agents.Spawns()
		waiting := slices.ContainsFunc(sps, func(sp fakes.Spawn) bool { return !sp.Answered })
		if !waiting || time.Now().After(deadline) {
			if len(sps) == 0 {
				return fmt.Errorf("no spawn was made")
			}
			for _, sp := range sps {
				switch {
				case !sp.Answered:
					return fmt.Errorf("the spawn of profile %q from %s was never answered", sp.Params.Profile, sp.Session)
				case sp.Err != nil:
					return fmt.Errorf("the spawn of profile %q from %s was answered with an error: %v", sp.Params.Profile, sp.Session, sp.Err)
				case sp.Result.Status != status:
					return fmt.Errorf("the spawn of %s was answered with status %q, expected %q", sp.Result.SessionID, sp.Result.Status, status)
				}
			}
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// SA-14: the partial message of a cancelled child is on record: in its end
// row, or in a message event of that session.
func (s *Scenario) saPartialMessage(profile, text string) error {
	id, _, err := s.saOne(profile, "child")
	if err != nil {
		return err
	}
	t := s.saSettled()
	if strings.Contains(fakes.MessageText(t.end[id].FinalMessage), text) {
		return nil
	}
	for _, ev := range s.World.Events() {
		if ev.SessionID == id && ev.Kind == wire.EventMessage && strings.Contains(saJSON(ev.Payload), text) {
			return nil
		}
	}
	return fmt.Errorf("the partial message %q of cancelled child %s is neither in its end session_meta row (final_message %q) nor in a message event",
		text, id, fakes.MessageText(t.end[id].FinalMessage))
}

// a spawn naming a parent other than the caller's session is refused.
func (s *Scenario) saClaimsRefused() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	n := 0
	for _, sp := range s.World.Agents.Spawns() {
		if !sp.Claimed {
			continue
		}
		n++
		if !sp.Answered {
			return fmt.Errorf("the spawn from %s that named %q as its parent was never answered", sp.Session, sp.Params.ParentSessionID)
		}
		if sp.Err == nil {
			return fmt.Errorf("the spawn from %s that named %q as its parent was accepted (child %s)", sp.Session, sp.Params.ParentSessionID, sp.Result.SessionID)
		}
	}
	if n == 0 {
		return fmt.Errorf("no spawn claimed another parent: the tool calls of the scenario never reached the harness")
	}
	return nil
}

func saJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// saFirstRequest is the first model request of the one child spawned
// from profile, as rel names it.
func (s *Scenario) saFirstRequest(profile, rel string) (string, wire.ModelStreamParams, error) {
	id, _, err := s.saOne(profile, rel)
	if err != nil {
		return "", wire.ModelStreamParams{}, err
	}
	reqs := s.saModel(id)
	if len(reqs) == 0 {
		return id, wire.ModelStreamParams{}, fmt.Errorf("the %q %s (%s) sent no model request", profile, rel, id)
	}
	return id, reqs[0], nil
}
