package testagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"strings"
	"sync"
	"time"
)

// Hooks are Claude Code's settings hooks, as `claude --settings FILE`
// reads them: event -> matcher groups -> command hooks run with sh -c, the
// event's JSON on stdin, a timeout in seconds (60 by default). The test
// agent acts on what the bridge's relay can answer (hookrelay.Format): exit
// 0 with hookSpecificOutput.permissionDecision "deny" or decision "block",
// "continue": false with a stopReason, exit 2 (blocking: stderr is the
// reason) and any other exit (a non-blocking error: the agent goes on).
// Claude Code runs the hooks of a matching group in parallel, and so does
// the test agent.
type hooks struct {
	byEvent   map[string][]hookGroup
	sessionID string
	stderr    io.Writer
}

type hookGroup struct {
	Matcher string    `json:"matcher"`
	Hooks   []hookCmd `json:"hooks"`
}

type hookCmd struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout"`
}

// defaultHookTimeout is Claude Code's for a command hook.
const defaultHookTimeout = 60 * time.Second

// loadHooks reads the settings file's "hooks"; no file, no hooks.
func loadHooks(file, sessionID string, stderr io.Writer) (*hooks, error) {
	h := &hooks{sessionID: sessionID, stderr: stderr}
	if file == "" {
		return h, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var s struct {
		Hooks map[string][]hookGroup `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for ev, gs := range s.Hooks {
		for _, g := range gs {
			for _, c := range g.Hooks {
				if c.Type != "command" || strings.TrimSpace(c.Command) == "" {
					return nil, fmt.Errorf("%s: hooks.%s: only command hooks with a command are supported, got %q", file, ev, c.Type)
				}
			}
			if _, err := path.Match(g.Matcher, ""); err != nil {
				return nil, fmt.Errorf("%s: hooks.%s: matcher %q: %w", file, ev, g.Matcher, err)
			}
		}
	}
	h.byEvent = s.Hooks
	return h, nil
}

// verdict is what the hooks of one event decided together.
type verdict struct {
	// deny: the call must not run (PreToolUse); reason goes to the model.
	deny   bool
	reason string
	// stop: "continue": false; the agent ends its run with stopReason.
	stop       bool
	stopReason string
	// context is additionalContext, for the model.
	context string
}

// hookOut is the part of Claude Code's hook output the test agent reads.
type hookOut struct {
	Continue   *bool  `json:"continue"`
	StopReason string `json:"stopReason"`
	Decision   string `json:"decision"`
	Reason     string `json:"reason"`
	HSO        struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// run runs the event's matching hooks with fields (plus session_id,
// hook_event_name and cwd) on their stdin. tool is the tool name the
// matcher is tried on ("" for events without one).
func (h *hooks) run(ctx context.Context, event, tool string, fields map[string]any) verdict {
	var cmds []hookCmd
	for _, g := range h.byEvent[event] {
		if ok, _ := path.Match(g.Matcher, tool); g.Matcher == "" || g.Matcher == "*" || ok {
			cmds = append(cmds, g.Hooks...)
		}
	}
	if len(cmds) == 0 {
		return verdict{}
	}
	in := map[string]any{"session_id": h.sessionID, "hook_event_name": event}
	if wd, err := os.Getwd(); err == nil {
		in["cwd"] = wd
	}
	for k, v := range fields {
		in[k] = v
	}
	stdin, _ := json.Marshal(in)
	outs := make([]verdict, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = h.one(ctx, event, c, stdin)
		}()
	}
	wg.Wait()
	// A deny or a stop of any hook wins, as in Claude Code; reasons join.
	var v verdict
	for _, o := range outs {
		if o.deny {
			v.deny, v.reason = true, join(v.reason, o.reason)
		}
		if o.stop {
			v.stop, v.stopReason = true, join(v.stopReason, o.stopReason)
		}
		v.context = join(v.context, o.context)
	}
	return v
}

func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// one runs one hook command in a process group of its own, so a timeout
// ends the command and whatever it started.
func (h *hooks) one(ctx context.Context, event string, c hookCmd, stdin []byte) verdict {
	timeout := defaultHookTimeout
	if c.Timeout > 0 {
		timeout = time.Duration(c.Timeout * float64(time.Second))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", c.Command)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(h.stderr, "test-agent: %s hook timed out after %v; going on\n", event, timeout)
		return verdict{}
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		// Blocking: the call is denied (at PreToolUse), stderr says why.
		return verdict{deny: true, reason: msg}
	case err != nil:
		fmt.Fprintf(h.stderr, "test-agent: %s hook failed (%v): %s; going on\n", event, err, msg)
		return verdict{}
	}
	if len(bytes.TrimSpace(stdout.Bytes())) == 0 {
		return verdict{}
	}
	var o hookOut
	if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
		// Claude Code shows plain stdout to the user and goes on.
		return verdict{}
	}
	v := verdict{context: o.HSO.AdditionalContext}
	switch {
	case o.HSO.PermissionDecision == "deny":
		v.deny, v.reason = true, o.HSO.PermissionDecisionReason
	case o.Decision == "block":
		v.deny, v.reason = true, o.Reason
	}
	if o.Continue != nil && !*o.Continue {
		v.stop, v.stopReason = true, o.StopReason
	}
	return v
}
