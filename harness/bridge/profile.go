package bridge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/bridge/dialect"
	"github.com/agentconform/conform/harness/bridge/hookrelay"
	"github.com/agentconform/conform/harness/bridge/otlp"
	"github.com/agentconform/conform/spec/wire"
)

// Profile is one agent's launch profile: a declarative file a user writes to
// add an agent, no code.
type Profile struct {
	Name    string `json:"name"`
	Comment string `json:"comment,omitempty"`
	// Package is how `make agents` installs the agent: an npm package at a
	// pinned version and the binary it provides.
	Package *Package `json:"package,omitempty"`
	// Dialect is the model API the agent speaks (dialect.Names).
	Dialect string `json:"dialect"`
	// Model is the model name the agent is told to use.
	Model string `json:"model"`
	// Command is the headless command line. Placeholders: {instruction}
	// {max_turns} {mcp_config} {hooks_config} {model} {base_url} {mcp_url}
	// {home} {workdir} {conform} {bin}.
	Command []string `json:"command"`
	// Env is the agent's environment besides HOME, PATH and the locale
	// (telemetry and update checks off, the fake base URL and a dummy key).
	// Nothing of the user's environment reaches the agent.
	Env map[string]string `json:"env,omitempty"`
	// Files are written before the agent starts: path (placeholders
	// allowed, under {home} or {workdir}) to content (placeholders too).
	Files map[string]string `json:"files,omitempty"`
	// MCPConfig is the content of {mcp_config}, a file in the scratch
	// folder (placeholders allowed); empty: none.
	MCPConfig string `json:"mcp_config,omitempty"`
	// HooksConfig is the content of {hooks_config}; empty: none.
	HooksConfig string `json:"hooks_config,omitempty"`
	// MCPExtension names an MCP client the bridge writes as
	// {mcp_extension} for an agent that has none but loads extension files
	// (extensions/NAME.ts: "pi"); the agent is told to load it in Command.
	MCPExtension string `json:"mcp_extension,omitempty"`
	// MCPServerName names the MCP server to the agent (default "conform");
	// ToolPrefix is how the agent names its tools (left out:
	// "mcp__conform__"): a tool offered without it is the agent's own.
	// Given as "", the agent offers MCP tools by their bare names
	// (Continue): a tool is the session's when the session declares its
	// name, and any other tool is the agent's own.
	MCPServerName string  `json:"mcp_server_name,omitempty"`
	ToolPrefix    *string `json:"tool_prefix,omitempty"`
	// Hooks names the agent's hook format the bridge writes for the
	// session's subscribers ("claude-code": the {hooks_config} settings
	// file; "codex": ~/.codex/hooks.json; "gemini-cli": "hooks" in
	// ~/.gemini/settings.json); empty: the bridge reaches no hook system
	// of the agent, and the profile says so in its glue.
	Hooks string `json:"hooks,omitempty"`
	// SpanRoles give the agent's OTLP spans conform roles by name (a
	// path.Match pattern): {"name": "codex.turn*", "role": "turn"}. Spans
	// reach the harness as trace/span only when the session has telemetry
	// on; {otlp_url} is the receiver's base URL (/v1/traces, /v1/logs,
	// /v1/metrics).
	SpanRoles []otlp.RoleRule `json:"span_roles,omitempty"`
	// Bounds maps a session bound to the arguments that set it, appended
	// to Command when the session has the bound: "max_turns":
	// ["--max-turns", "{max_turns}"]. A bound missing here is one the agent
	// cannot be told; its capability must not be declared.
	Bounds map[string][]string `json:"bounds,omitempty"`
	// BoundsEnv maps a session bound to environment variables that set it,
	// added when the session has the bound, for an agent whose limit is a
	// setting it reads from its environment rather than a flag (opencode:
	// OPENCODE_CONFIG_CONTENT with agent.build.steps). Values take the
	// placeholders, {max_turns_plus_one} among them.
	BoundsEnv map[string]map[string]string `json:"bounds_env,omitempty"`
	// Capabilities and Readings are the initialize answer (PROTOCOL.md §15).
	Capabilities []string          `json:"capabilities,omitempty"`
	Readings     map[string]string `json:"readings,omitempty"`
	// Glue names the requirements whose verdict depends on what the
	// profile or the bridge does for the agent rather than on the agent
	// (PROTOCOL.md §15): the initialize answer carries it, and reports
	// count those failures apart from the agent's.
	Glue []wire.GlueNote `json:"glue,omitempty"`
	// NotTurns are the calls that are not turns of the loop (a routing or
	// title request): answered as the agent needs, never sent to the
	// harness, reported as observations.
	NotTurns []NotTurn `json:"not_turns,omitempty"`
	// Result says how the agent's outcome is read from its stdout.
	Result Result `json:"result"`
	// StubPaths answer requests to other paths of the model base URL
	// (Codex's analytics POST) with this JSON, as an observation.
	StubPaths map[string]json.RawMessage `json:"stub_paths,omitempty"`
	// TimeoutS bounds one run of the agent (default 120): past it the
	// agent is killed and the session is an error naming the hang.
	TimeoutS float64 `json:"timeout_s,omitempty"`
	// Isolation: "netns" (default) requires the network namespace.
	Isolation string `json:"isolation,omitempty"`
	// Daemons are processes the agent is known to leave running when it
	// exits (Cline's hub daemon): the bridge still ends them, and reports
	// each as an observation instead of an error of the session. Any
	// other process left behind stays an error.
	Daemons []Daemon `json:"daemons,omitempty"`
}

// Daemon is one process an agent leaves behind by design.
type Daemon struct {
	// Match is a substring of the process's command line
	// ("--cline-hub-daemon").
	Match string `json:"match"`
	// Why says what the process is, for the observation.
	Why string `json:"why"`
}

// daemon is the declared daemon a process left behind is, if any.
func (p *Profile) daemon(proc string) (Daemon, bool) {
	for _, d := range p.Daemons {
		if strings.Contains(proc, d.Match) {
			return d, true
		}
	}
	return Daemon{}, false
}

// Package is an npm package at a pinned version.
type Package struct {
	NPM     string `json:"npm"`
	Version string `json:"version"`
	Bin     string `json:"bin"`
}

// NotTurn is one rule for a call that is not a turn.
type NotTurn struct {
	// What the rule is, for the observation ("Gemini CLI routing call").
	Name string `json:"name"`
	// Match: "json_schema" (the request asks for structured JSON output),
	// "system_contains" (Text in the system prompt), "no_tools" (the
	// request offers no tool with ToolPrefix), "max_tokens_at_most" (the
	// output limit is at most Tokens).
	Match  string `json:"match"`
	Text   string `json:"text,omitempty"`
	Tokens int    `json:"tokens,omitempty"`
	// Answer: "fit" (JSON fitting the request's schema) or the literal
	// text to answer with.
	Answer string `json:"answer"`
}

// Result reads the agent's outcome from a JSON line of its stdout.
type Result struct {
	// Line selects the line: a field and its value ({"type":"result"}).
	Line map[string]string `json:"line,omitempty"`
	// Lines are more lines that end a run, each read like Line (opencode
	// ends a run that failed with {"type":"error"} instead of its
	// step_finish); the last line of stdout that matches any is read.
	Lines []map[string]string `json:"lines,omitempty"`
	// StatusField holds the agent's ending; StatusMap maps its values onto
	// the spec's statuses. A missing or unknown value is an error of the
	// bridge naming it (the profile's gap), never the agent's "failed".
	StatusField string            `json:"status_field,omitempty"`
	StatusMap   map[string]string `json:"status_map,omitempty"`
	// TextField holds the final answer's text.
	TextField string `json:"text_field,omitempty"`
	// InputTokensField and OutputTokensField hold the agent's own totals
	// (dotted paths); left out, the totals are 0 (never invented).
	InputTokensField  string `json:"input_tokens_field,omitempty"`
	OutputTokensField string `json:"output_tokens_field,omitempty"`
	CostField         string `json:"cost_field,omitempty"`
	// ExitStatusMap maps an exit status (its number) onto the status the
	// session ends with when the agent exits without its result line: an
	// agent that documents an exit status for a bound (Qwen Code's 53,
	// FatalTurnLimitedError, at --max-session-turns) ends the session with
	// that bound, and what it did before is judged, instead of an error of
	// the bridge. An exit status it does not map stays such an error.
	ExitStatusMap map[string]string `json:"exit_status_map,omitempty"`
}

// lines are Line and Lines.
func (rs Result) lines() []map[string]string {
	return append([]map[string]string{rs.Line}, rs.Lines...)
}

// exitStatus is the status ExitStatusMap gives the agent's exit status
// ("status 53", exitText), or "".
func (rs Result) exitStatus(exit string) string {
	code, ok := strings.CutPrefix(exit, "status ")
	if !ok {
		return "" // killed by a signal
	}
	return rs.ExitStatusMap[code]
}

// endStatuses are the statuses a session ends with (PROTOCOL.md): what a
// profile's status_map may map onto. A misspelt one would reach the harness
// as a status no check knows.
var endStatuses = []string{wire.StatusCompleted, wire.StatusErrorMaxTurns, wire.StatusErrorMaxBudgetUSD, wire.StatusErrorMaxWallClock, wire.StatusCancelled, wire.StatusFailed}

// requirementID is the wire's pattern for a GlueNote's requirement.
var requirementID = regexp.MustCompile(`^[A-Z]{2}-[0-9]{2}$`)

var placeholder = regexp.MustCompile(`\{[a-z_]+\}`)

var known = []string{"{instruction}", "{max_turns}", "{mcp_config}", "{hooks_config}", "{model}", "{base_url}", "{mcp_url}", "{home}", "{workdir}", "{conform}", "{bin}", "{hook_url}", "{otlp_url}", "{max_turns_plus_one}", "{mcp_extension}"}

// LoadProfile reads and checks a profile file (JSON).
func LoadProfile(path string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	var p Profile
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&p); err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	return &p, nil
}

// Check refuses a profile the kernel could not run.
func (p *Profile) Check() error {
	if p.Name == "" {
		return fmt.Errorf("name is empty")
	}
	if !slices.Contains(dialect.Names(), p.Dialect) {
		return fmt.Errorf("dialect %q is none of %s", p.Dialect, strings.Join(dialect.Names(), ", "))
	}
	if len(p.Command) == 0 {
		return fmt.Errorf("command is empty")
	}
	if p.MCPExtension != "" {
		if _, err := extension(p.MCPExtension); err != nil {
			return err
		}
	} else if slices.ContainsFunc(p.Command, func(a string) bool { return strings.Contains(a, "{mcp_extension}") }) {
		return fmt.Errorf("command names {mcp_extension}, the profile names no mcp_extension")
	}
	if p.Isolation != "" && p.Isolation != "netns" {
		return fmt.Errorf("isolation %q: only netns is known", p.Isolation)
	}
	check := func(where, s string) error {
		for _, m := range placeholder.FindAllString(s, -1) {
			if !slices.Contains(known, m) {
				return fmt.Errorf("%s: unknown placeholder %s (known: %s)", where, m, strings.Join(known, " "))
			}
		}
		return nil
	}
	all := map[string]string{}
	for i, a := range p.Command {
		all[fmt.Sprintf("command[%d]", i)] = a
	}
	for k, v := range p.Env {
		all["env "+k] = v
	}
	for k, v := range p.Files {
		all["files key "+k] = k
		all["files "+k] = v
		if !strings.HasPrefix(k, "{home}/") && !strings.HasPrefix(k, "{workdir}/") {
			return fmt.Errorf("files %q: a file must lie under {home}/ or {workdir}/", k)
		}
	}
	for k, v := range p.Bounds {
		if k != "max_turns" && k != "max_cost_usd" && k != "max_wall_clock_s" {
			return fmt.Errorf("bounds %q: not a bound", k)
		}
		for i, a := range v {
			all[fmt.Sprintf("bounds %s[%d]", k, i)] = a
		}
	}
	for k, v := range p.BoundsEnv {
		if k != "max_turns" && k != "max_cost_usd" && k != "max_wall_clock_s" {
			return fmt.Errorf("bounds_env %q: not a bound", k)
		}
		for name, val := range v {
			all[fmt.Sprintf("bounds_env %s %s", k, name)] = val
		}
	}
	all["mcp_config"], all["hooks_config"] = p.MCPConfig, p.HooksConfig
	if p.Hooks != "" && !slices.Contains(hookFormats, p.Hooks) {
		return fmt.Errorf("hooks %q: the bridge writes hook configurations for %s", p.Hooks, strings.Join(hookFormats, ", "))
	}
	if p.Hooks == hookrelay.AgentPi && p.MCPExtension != "pi" {
		return fmt.Errorf("hooks %q: pi's hooks are relayed by the bridge's pi extension, which the profile does not load (mcp_extension)", p.Hooks)
	}
	for k, v := range all {
		if err := check(k, v); err != nil {
			return err
		}
	}
	for i, g := range p.Glue {
		if !requirementID.MatchString(g.Requirement) || strings.TrimSpace(g.Reason) == "" {
			return fmt.Errorf("glue[%d]: needs a requirement ID (TA-25) and a reason, got %q and %q", i, g.Requirement, g.Reason)
		}
	}
	for k, v := range p.Result.StatusMap {
		if !slices.Contains(endStatuses, v) {
			return fmt.Errorf("result.status_map %q: %q is not a status a session ends with (%s)", k, v, strings.Join(endStatuses, ", "))
		}
	}
	for k, v := range p.Result.ExitStatusMap {
		if n, err := strconv.Atoi(k); err != nil || n < 0 || n > 255 || strconv.Itoa(n) != k {
			return fmt.Errorf("result.exit_status_map %q: not an exit status (0-255)", k)
		}
		if !slices.Contains(endStatuses, v) {
			return fmt.Errorf("result.exit_status_map %q: %q is not a status a session ends with (%s)", k, v, strings.Join(endStatuses, ", "))
		}
	}
	if err := (otlp.Mapping{Roles: p.SpanRoles}).Check(); err != nil {
		return err
	}
	for i, n := range p.NotTurns {
		switch n.Match {
		case "json_schema", "system_contains", "no_tools", "max_tokens_at_most":
		default:
			return fmt.Errorf("not_turns[%d]: unknown match %q", i, n.Match)
		}
		if n.Answer == "" {
			return fmt.Errorf("not_turns[%d]: no answer", i)
		}
	}
	for i, d := range p.Daemons {
		if strings.TrimSpace(d.Match) == "" || strings.TrimSpace(d.Why) == "" {
			return fmt.Errorf("daemons[%d]: needs a match (part of its command line) and why it is left running, got %q and %q", i, d.Match, d.Why)
		}
	}
	return nil
}

// DefaultTimeout is a profile's timeout_s when it names none.
const DefaultTimeout = 120 * time.Second

// SessionTimeout is the profile's limit for one run of the agent, before
// any --timeout-multiplier.
func (p *Profile) SessionTimeout() time.Duration {
	if p.TimeoutS <= 0 {
		return DefaultTimeout
	}
	return time.Duration(p.TimeoutS * float64(time.Second))
}

func (p *Profile) serverName() string {
	if p.MCPServerName == "" {
		return "conform"
	}
	return p.MCPServerName
}

func (p *Profile) toolPrefix() string {
	if p.ToolPrefix == nil {
		return "mcp__" + p.serverName() + "__"
	}
	return *p.ToolPrefix
}

// sessionTool maps a tool name as the agent names it onto the session's
// (ok false: the agent's own tool). With no prefix (ToolPrefix ""), only a
// name the session declares is the session's: every name has the empty
// prefix, the agent's built-in tools too.
func (p *Profile) sessionTool(n string, tools []wire.ToolSchema) (string, bool) {
	prefix := p.toolPrefix()
	w, ok := strings.CutPrefix(n, prefix)
	if ok && prefix == "" {
		ok = slices.ContainsFunc(tools, func(t wire.ToolSchema) bool { return t.Name == w })
	}
	return w, ok
}

// expand replaces placeholders; one not in vars is left as written (Check
// has refused unknown ones).
func expand(s string, vars map[string]string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m]; ok {
			return v
		}
		return m
	})
}

// ResolveProfile finds a profile by file path or by agent name under dirs
// (NAME.json).
func ResolveProfile(nameOrPath string, dirs ...string) (string, error) {
	if strings.ContainsAny(nameOrPath, "/\\") || strings.HasSuffix(nameOrPath, ".json") {
		if _, err := os.Stat(nameOrPath); err != nil {
			return "", fmt.Errorf("profile: %w", err)
		}
		return nameOrPath, nil
	}
	for _, d := range dirs {
		p := filepath.Join(d, nameOrPath+".json")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no profile named %q under %s", nameOrPath, strings.Join(dirs, ", "))
}
