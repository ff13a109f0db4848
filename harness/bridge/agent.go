package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
)

// Limits on what an agent may print: past them it floods, and the session
// is an error saying so.
const (
	maxStdout  = 16 << 20
	stderrTail = 2048
)

// run starts the agent, waits for it, ends its whole process tree and maps
// what it did onto the session's result.
func (r *run) run(ctx context.Context) (wire.RunSessionResult, error) {
	pr := r.k.Profile
	vars, err := r.prepare()
	if err != nil {
		return wire.RunSessionResult{}, kernelkit.Errorf(wire.CodeInternal, "bridge: %v", err)
	}
	args := make([]string, 0, len(pr.Command))
	for _, a := range pr.Command {
		args = append(args, expand(a, vars))
	}
	extraArgs, extraEnv := r.bounds(vars)
	args = append(args, extraArgs...)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = vars["{workdir}"]
	cmd.Env = append(r.env(vars), extraEnv...)
	cmd.SysProcAttr = agentProcAttr()
	out := &lineWriter{flood: make(chan struct{})}
	cmd.Stdout = out
	var tail tailBuffer
	cmd.Stderr = &tail
	// A helper that keeps the agent's stdout open must not hold Wait: past
	// this delay after the agent's exit the pipes are closed, and the
	// sweep below names the helper.
	cmd.WaitDelay = 2 * time.Second
	enableSubreaper()
	if err := startAgent(cmd); err != nil {
		return wire.RunSessionResult{}, kernelkit.Errorf(wire.CodeInternal, "bridge: could not start the agent %q: %v", args[0], err)
	}
	defer endAgent(cmd.Process.Pid)
	timeout := r.k.sessionTimeout()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var why string
	select {
	case err = <-done:
	case <-out.flood:
		why = fmt.Sprintf("flooded its output (more than %d MiB on stdout)", maxStdout>>20)
	case <-time.After(timeout):
		why = fmt.Sprintf("hung: still running after the profile's limit of %v", timeout)
	case <-ctx.Done():
		why = "cancelled"
	}
	if why != "" {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		// The agent's stdout may be held by a helper: sweep first, so
		// that the reader and Wait can finish.
		_, _ = sweep(r.marker(), cmd.Process.Pid, 0, 5*time.Second)
		err = <-done
	}
	// Sweep before killing the group, so that a helper still running is
	// seen and named; then the group, for one that cleared its marker.
	grace := time.Duration(0)
	if why == "" {
		grace = r.k.helperGrace()
	}
	left, sweepErr := sweep(r.marker(), cmd.Process.Pid, grace, 5*time.Second)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	left = r.daemonsLeft(left)
	r.k.syncConnections()
	r.flushObservations()
	r.mu.Lock()
	problems := append([]string(nil), r.problems...)
	turns := r.turns
	r.mu.Unlock()
	if why == "cancelled" {
		return wire.RunSessionResult{SessionID: r.p.SessionID, Status: wire.StatusCancelled, Turns: turns}, nil
	}
	status := exitText(err)
	fail := func(what string) (wire.RunSessionResult, error) {
		msg := fmt.Sprintf("bridge: the agent %s %s", pr.Name, what)
		if t := strings.TrimSpace(tail.String()); t != "" {
			msg += "; its stderr ends: " + t
		}
		return wire.RunSessionResult{}, kernelkit.Errorf(wire.CodeInternal, "%s", msg)
	}
	// Everything the agent did wrong is named, in one error.
	var what []string
	if why != "" {
		what = append(what, why)
	}
	if len(problems) > 0 {
		what = append(what, "sent what its dialect does not allow: "+strings.Join(problems, "; "))
	}
	res, ok := r.result(out.lines())
	if st := pr.Result.exitStatus(status); !ok && why == "" && st != "" {
		res, ok = wire.RunSessionResult{SessionID: r.p.SessionID, Status: st}, true
	}
	if !ok && why == "" {
		what = append(what, fmt.Sprintf("exited (%s) without its result line (%s)", status, describeAll(pr.Result.lines())))
	}
	if ok && why == "" && res.Status == "" {
		line, _ := r.resultLine(out.lines())
		what = append(what, fmt.Sprintf("ended with %s %q in its result line, which the profile's status_map does not map (the profile's glue, not the agent's verdict)",
			pr.Result.StatusField, fmt.Sprint(dig(line, pr.Result.StatusField))))
	}
	if why == "" && len(r.p.Config.Tools) > 0 && r.mcp.Sessions() == 0 {
		what = append(what, fmt.Sprintf("opened no MCP session: the session's %d tool(s) were never listed", len(r.p.Config.Tools)))
	}
	if len(left) > 0 {
		what = append(what, fmt.Sprintf("left %d process(es) running after it exited (%s), ended by the bridge", len(left), strings.Join(left, ", ")))
	}
	if sweepErr != nil {
		what = append(what, sweepErr.Error())
	}
	if len(what) > 0 {
		return fail(strings.Join(what, "; and "))
	}
	res.Turns = turns
	return res, nil
}

// daemonsLeft reports the processes left behind that the profile declares
// as the agent's daemons, as observations, and returns the others.
func (r *run) daemonsLeft(left []string) []string {
	var others []string
	for _, proc := range left {
		d, ok := r.k.Profile.daemon(proc)
		if !ok {
			others = append(others, proc)
			continue
		}
		r.observe("the agent left %s running after it exited, as its profile declares (%s); ended by the bridge", proc, d.Why)
	}
	return others
}

// flushObservations hands this session's observations, each distinct one
// once with how often it was seen, to the observation file (the report)
// and to the kernel's log.
func (r *run) flushObservations() {
	r.mu.Lock()
	if len(r.ownOrder) > 0 {
		// One line for all of them: an agent offers the same dozen tools
		// of its own in every session.
		quoted := make([]string, len(r.ownOrder))
		for i, n := range r.ownOrder {
			quoted[i] = strconv.Quote(n)
		}
		r.observed = append(r.observed, observation{SubjectBridge, fmt.Sprintf("the agent offered %d tool(s) of its own to the model, left out of the recorded requests: %s", len(quoted), strings.Join(quoted, ", "))})
		r.ownOrder = nil
	}
	bySubject := map[string][]string{}
	var subjects []string
	for _, o := range r.observed {
		if bySubject[o.subject] == nil {
			subjects = append(subjects, o.subject)
		}
		bySubject[o.subject] = append(bySubject[o.subject], o.what)
	}
	r.observed = nil
	r.mu.Unlock()
	for _, sub := range subjects {
		for _, what := range countDistinct(bySubject[sub]) {
			r.k.Observations.Write(Observation{SessionID: r.p.SessionID, Subject: sub, What: what})
			r.k.logf("observation (%s, %s): %s", r.k.Profile.Name, sub, what)
		}
	}
}

func (r *run) marker() string { return runMarker + "=" + r.id }

// prepare writes the agent's configuration files and returns the
// placeholders' values.
func (r *run) prepare() (map[string]string, error) {
	pr := r.k.Profile
	model := pr.Model
	if model == "" {
		model = r.p.Config.Model.Name
	}
	vars := map[string]string{
		"{instruction}":   r.p.Prompt,
		"{model}":         model,
		"{base_url}":      r.modelURL,
		"{mcp_url}":       r.auxURL + "/mcp",
		"{hook_url}":      r.auxURL + "/hooks",
		"{otlp_url}":      r.auxURL,
		"{home}":          filepath.Join(r.dir, "home"),
		"{workdir}":       filepath.Join(r.dir, "work"),
		"{mcp_config}":    filepath.Join(r.dir, "mcp.json"),
		"{hooks_config}":  filepath.Join(r.dir, "hooks.json"),
		"{mcp_extension}": filepath.Join(r.dir, "extensions", pr.MCPExtension+".ts"),
		"{conform}":       r.k.Conform,
		"{max_turns}":     "",
		// An agent that counts its closing turn among its steps (opencode)
		// is told one more than the ordinary turns the session allows.
		"{max_turns_plus_one}": "",
	}
	if pr.Package != nil && pr.Package.Bin != "" {
		vars["{bin}"] = filepath.Join(r.k.BinDir, pr.Package.Bin)
	}
	if mt := r.p.Config.Bounds.MaxTurns; mt != nil {
		vars["{max_turns}"] = strconv.Itoa(*mt)
		vars["{max_turns_plus_one}"] = strconv.Itoa(*mt + 1)
	}
	write := func(path, content string) error {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(expand(content, vars)), 0o600)
	}
	if pr.MCPConfig != "" {
		if err := write(vars["{mcp_config}"], pr.MCPConfig); err != nil {
			return nil, err
		}
	}
	if pr.HooksConfig != "" {
		if err := write(vars["{hooks_config}"], pr.HooksConfig); err != nil {
			return nil, err
		}
	}
	if pr.MCPExtension != "" {
		src, err := extension(pr.MCPExtension)
		if err != nil {
			return nil, err
		}
		// The extension relays the agent's hooks only where the profile
		// says the bridge reaches them ({hooks}: its own placeholder).
		src = strings.ReplaceAll(src, "{hooks}", pr.Hooks)
		if err := write(vars["{mcp_extension}"], src); err != nil {
			return nil, err
		}
	}
	for k, v := range pr.Files {
		p := filepath.Clean(expand(k, vars))
		if !strings.HasPrefix(p, r.dir+string(os.PathSeparator)) {
			return nil, fmt.Errorf("profile file %q lies outside the scratch folder", k)
		}
		if err := write(p, v); err != nil {
			return nil, err
		}
	}
	// After the files: a hook format may add to a settings file the
	// profile wrote (Gemini CLI).
	if err := r.writeHooks(vars); err != nil {
		return nil, err
	}
	return vars, nil
}

// bounds are the arguments and environment variables that tell the agent
// the session's bounds (the profile's bounds and bounds_env); a bound the
// session sets that the profile maps to neither is an observation.
func (r *run) bounds(vars map[string]string) (args, env []string) {
	pr := r.k.Profile
	b := r.p.Config.Bounds
	for _, name := range []string{"max_turns", "max_cost_usd", "max_wall_clock_s"} {
		set := (name == "max_turns" && b.MaxTurns != nil) || (name == "max_cost_usd" && b.MaxCostUSD != nil) || (name == "max_wall_clock_s" && b.MaxWallClockS != nil)
		if !set {
			continue
		}
		extra, hasArgs := pr.Bounds[name]
		vals, hasEnv := pr.BoundsEnv[name]
		if !hasArgs && !hasEnv {
			r.observe("the session sets %s, which the agent cannot be told (the profile maps no flag or setting)", name)
			continue
		}
		for _, a := range extra {
			args = append(args, expand(a, vars))
		}
		keys := make([]string, 0, len(vals))
		for k := range vals {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			env = append(env, k+"="+expand(vals[k], vars))
		}
	}
	return args, env
}

// env is the agent's whole environment: nothing of the user's but PATH and
// the locale.
func (r *run) env(vars map[string]string) []string {
	env := []string{
		"HOME=" + vars["{home}"],
		"TMPDIR=" + filepath.Join(r.dir, "tmp"),
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"NO_COLOR=1",
		r.marker(),
	}
	for k, v := range r.k.Profile.Env {
		env = append(env, k+"="+expand(v, vars))
	}
	return env
}

// lineWriter keeps the agent's stdout as lines, up to maxStdout bytes;
// past that it closes flood and drops the rest.
type lineWriter struct {
	mu      sync.Mutex
	buf     []byte
	n       int
	flooded bool
	flood   chan struct{}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(p)
	if w.n > maxStdout {
		if !w.flooded {
			w.flooded = true
			close(w.flood)
		}
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (w *lineWriter) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Split(string(w.buf), "\n")
}

// result reads the profile's result line, the last one that matches.
func (r *run) result(lines []string) (wire.RunSessionResult, bool) {
	rs := r.k.Profile.Result
	m, ok := r.resultLine(lines)
	if !ok {
		return wire.RunSessionResult{}, false
	}
	// A status the profile does not map is the profile's gap, not the
	// agent's failure: it is left empty, and run names it as an error
	// of the bridge instead of inventing "failed".
	res := wire.RunSessionResult{SessionID: r.p.SessionID}
	if s, ok := rs.StatusMap[fmt.Sprint(dig(m, rs.StatusField))]; ok {
		res.Status = s
	}
	if t, ok := dig(m, rs.TextField).(string); ok && rs.TextField != "" {
		res.FinalMessage = &wire.Message{Role: "assistant", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: t}}}
	}
	if v, ok := dig(m, rs.InputTokensField).(float64); ok {
		res.TotalInputTokens = int64(v)
	}
	if v, ok := dig(m, rs.OutputTokensField).(float64); ok {
		res.TotalOutputTokens = int64(v)
	}
	if v, ok := dig(m, rs.CostField).(float64); ok {
		res.TotalCostUSD = v
	}
	return res, true
}

// resultLine is the last line of the agent's stdout that is one of the
// profile's result lines.
func (r *run) resultLine(lines []string) (map[string]any, bool) {
	rs := r.k.Profile.Result
	for i := len(lines) - 1; i >= 0; i-- {
		var m map[string]any
		if json.Unmarshal([]byte(lines[i]), &m) != nil {
			continue
		}
		for _, want := range rs.lines() {
			if lineMatches(m, want) {
				return m, true
			}
		}
	}
	return nil, false
}

func lineMatches(m map[string]any, want map[string]string) bool {
	for k, v := range want {
		if fmt.Sprint(m[k]) != v {
			return false
		}
	}
	return true
}

func dig(m map[string]any, path string) any {
	if path == "" {
		return nil
	}
	var v any = m
	for _, k := range strings.Split(path, ".") {
		switch c := v.(type) {
		case map[string]any:
			v = c[k]
		case []any:
			// An index into an array; a negative one counts from its end
			// (pi's agent_end holds every message: messages.-1 is the last).
			i, err := strconv.Atoi(k)
			if i < 0 {
				i += len(c)
			}
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func describe(line map[string]string) string {
	var parts []string
	for k, v := range line {
		parts = append(parts, fmt.Sprintf("%s=%q", k, v))
	}
	if len(parts) == 0 {
		return "any JSON line"
	}
	return "a JSON line with " + strings.Join(parts, ", ")
}

func describeAll(lines []map[string]string) string {
	var out []string
	for _, l := range lines {
		out = append(out, describe(l))
	}
	return strings.Join(out, " or ")
}

func exitText(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "status 0"
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by " + ws.Signal().String()
		}
		return "status " + strconv.Itoa(ee.ExitCode())
	}
	return err.Error()
}

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrTail {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-stderrTail:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
