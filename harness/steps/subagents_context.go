package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

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
		return notReached("the %q %s (%s) sent no model request", profile, rel, id)
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
		return notReached("no %q sub-agent was started (no session_meta row names that profile under the root)", profile)
	}
	if !s.saProduced(marker, ids) {
		return notReached("%q was never produced outside the %q sub-agents (no other request or model answer holds it), so nothing could leak", marker, profile)
	}
	for _, id := range ids {
		reqs := s.saRequests(id, "")
		if len(reqs) == 0 {
			return notReached("the %q sub-agent %s sent no request at all", profile, id)
		}
		for _, e := range reqs {
			if strings.Contains(string(e.Params), marker) {
				return fmt.Errorf("%q reached the %q sub-agent %s in its request #%d (%s)", marker, profile, id, e.Seq, e.Label)
			}
		}
	}
	return nil
}

// saProduced reports whether a marker exists somewhere outside the given
// sessions before it could leak: in another session's request or in a
// model answer to another session.
func (s *Scenario) saProduced(marker string, except []string) bool {
	for _, e := range s.World.Log.Entries() {
		if e.Kind != calllog.Request || slices.Contains(except, e.SessionID) {
			continue
		}
		if strings.Contains(string(e.Params), marker) || strings.Contains(string(e.Result), marker) {
			return true
		}
	}
	return false
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
		return fmt.Errorf("expected root model request %s to offer %q, it offered %s", nth, tool, plain.JSON(toolNames(r)))
	}
	return nil
}

func (s *Scenario) saFirstOffered(profile, rel, tool string) error {
	id, first, err := s.saFirstRequest(profile, rel)
	if err != nil {
		return err
	}
	if !slices.Contains(toolNames(first), tool) {
		return fmt.Errorf("expected the first model request of %s to offer %q, it offered %s", id, tool, plain.JSON(toolNames(first)))
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
			return fmt.Errorf("model request %d of %s offered %q, which that session must not have (it offered %s)", i+1, id, tool, plain.JSON(toolNames(r)))
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
			return fmt.Errorf("expected model request %d of %s to offer exactly %s, it offered %s", i+1, id, plain.JSON(want), plain.JSON(got))
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
		return fmt.Errorf("expected %s, the kernel reported session_meta rows for %d: %s", plain.Count(n, "sub-agent session"), len(kids), plain.And(kids))
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
	reported := 0
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
			reported++
			if *r != want[id] {
				return fmt.Errorf("session %s reports remaining_depth %d; inheritance from its parent gives %d", id, *r, want[id])
			}
		}
	}
	if reported == 0 {
		return notReached("no session_meta row carries remaining_depth (an optional field)")
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
		return id, wire.ModelStreamParams{}, notReached("the %q %s (%s) sent no model request", profile, rel, id)
	}
	return id, reqs[0], nil
}
