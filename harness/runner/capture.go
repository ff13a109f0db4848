package runner

import (
	"context"
	"fmt"
	"path"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/steps"
	"github.com/agentconform/conform/spec/wire"
)

// Capture is what a repro bundle needs of one failing or erroring scenario
// beyond its report row: the scenario exactly as godog ran it (background
// steps first, an outline's example row filled in) and everything the
// harness recorded of its session, payloads included.
type Capture struct {
	Row    report.ScenarioResult
	Pickle *messages.Pickle
	// Feature is the feature the scenario came from (its name and
	// description; a fuzz case names its seed there).
	Feature *messages.Feature
	// Log is the scenario's complete recorded exchange.
	Log *calllog.Log
	// Session is the session/run the harness sent (or would have sent, had
	// the scenario got that far); Result the kernel's answer.
	Session wire.RunParams
	Result  wire.RunSessionResult
	// Stderr is what the kernel wrote to stderr while the scenario held
	// it; StderrLost the bytes of that the kept window no longer held.
	// HasStderr is false when the kernel has none (in-process) or never
	// started.
	Stderr     string
	StderrLost int64
	HasStderr  bool
}

func (c *collector) captured(o steps.Outcome, row report.ScenarioResult) *Capture {
	s := o.State
	cp := &Capture{
		Row: row, Pickle: o.Pickle, Log: s.World.Log,
		Session: wire.RunParams{SessionID: s.SessionID, Prompt: s.Prompt, Config: s.Cfg},
		Result:  s.Result, Stderr: s.Stderr, StderrLost: s.StderrLost, HasStderr: s.HasStderr,
	}
	if doc := c.docs[o.Pickle.Uri]; doc != nil {
		cp.Feature = doc.Feature
	}
	return cp
}

// only narrows the selected scenarios to those keep keeps, and returns them
// with their refs as a set (nil when keep is nil: everything).
func only(refs []ScenarioRef, keep func(ScenarioRef) bool) ([]ScenarioRef, map[string]bool) {
	if keep == nil {
		return refs, nil
	}
	var out []ScenarioRef
	set := map[string]bool{}
	for _, r := range refs {
		if keep(r) {
			out = append(out, r)
			set[refKey(r.File, r.Line)] = true
		}
	}
	return out, set
}

// skipOthers skips, before any step, a scenario outside the run's slice;
// add then drops its row.
func (c *collector) skipOthers(ctx context.Context, p *godog.Scenario) (context.Context, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.keep[c.refOf(p)] {
		return ctx, godog.ErrSkip
	}
	return ctx, nil
}

func shardName(sh *report.ShardInfo) string {
	if sh == nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", sh.K, sh.N)
}

func shardInfo(sh *report.ShardInfo, ran int) *report.ShardInfo {
	if sh == nil {
		return nil
	}
	out := *sh
	out.Scenarios = ran
	return &out
}

func refKey(file string, line int) string { return fmt.Sprintf("%s:%d", path.Clean(file), line) }

// refOf is the scenario's file:line as Select names it (rules and example
// rows included), from godog's own parse; the caller holds c.mu.
func (c *collector) refOf(p *godog.Scenario) string {
	doc := c.docs[p.Uri]
	if doc == nil || len(p.AstNodeIds) == 0 {
		return refKey(p.Uri, 0)
	}
	if c.lines == nil {
		c.lines = map[string]map[string]int{}
	}
	lines := c.lines[p.Uri]
	if lines == nil {
		lines = nodeLines(doc)
		c.lines[p.Uri] = lines
	}
	return refKey(p.Uri, lines[p.AstNodeIds[len(p.AstNodeIds)-1]])
}
