package testagent

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Misbehaviours --misbehave knows.
var Misbehaviours = []string{"bad-request", "half-request", "hang", "exit-early", "fork-helper", "daemon", "flood", "no-mcp", "half-line", "leak-state", "exit-at-limit", "ignore-hooks", "ignore-stop", "phone-home"}

type config struct {
	dialect, baseURL, mcpURL, prompt, model, misbehave string
	settings, otlpURL                                  string
	toolPrefix, ownTool                                string
	maxTurns                                           int
	stream, titleCall                                  bool
}

// Main is `conform test-agent`.
func Main(args []string, stdout, stderr io.Writer) int {
	var c config
	fs := flag.NewFlagSet("test-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.dialect, "dialect", "", "anthropic, openai-chat, openai-responses or gemini")
	fs.StringVar(&c.baseURL, "base-url", "", "the model's base URL")
	fs.StringVar(&c.mcpURL, "mcp-url", "", "the MCP server's Streamable HTTP URL")
	fs.StringVar(&c.prompt, "prompt", "", "the instruction")
	fs.StringVar(&c.model, "model", "conform-model", "model name")
	fs.IntVar(&c.maxTurns, "max-turns", 0, "stop after this many model calls that asked for tools (0: no limit but a safety net of 50)")
	fs.BoolVar(&c.stream, "stream", true, "use the dialect's streaming API")
	fs.BoolVar(&c.titleCall, "title-call", false, "first ask the model for a title, without tools, as opencode does (a call that is not a turn)")
	fs.StringVar(&c.misbehave, "misbehave", "", "misbehave: "+strings.Join(Misbehaviours, ", "))
	fs.StringVar(&c.settings, "settings", "", "a Claude Code settings file whose command hooks to run (SessionStart, PreToolUse, PostToolUse, SessionEnd)")
	fs.StringVar(&c.otlpURL, "otlp-url", "", "export the agent's spans over OTLP/HTTP to this base URL")
	fs.StringVar(&c.toolPrefix, "tool-prefix", "mcp__conform__", "how the agent names its MCP tools to the model: this prefix and the tool's name (\"\": the bare name, as Continue does)")
	fs.StringVar(&c.ownTool, "own-tool", "", "also offer the model a tool of the agent's own by this name (never called)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.baseURL == "" || c.dialect == "" {
		fmt.Fprintln(stderr, "test-agent: --dialect and --base-url are required")
		return 2
	}
	ctx := context.Background()
	switch c.misbehave {
	case "", "no-mcp", "exit-at-limit", "ignore-hooks", "ignore-stop":
	case "phone-home":
		// As agents' telemetry does: a name looked up, a connection and a
		// datagram to literal addresses beyond loopback; then its work.
		phoneHome(stderr)
	case "bad-request":
		return badRequest(c, stdout, stderr)
	case "half-request":
		return halfRequest(c, stderr)
	case "hang":
		select {}
	case "exit-early":
		fmt.Fprintln(stderr, "test-agent: exiting before doing anything, as asked")
		return 3
	case "fork-helper":
		h := exec.Command("sleep", "3600")
		if err := h.Start(); err != nil {
			fmt.Fprintln(stderr, "test-agent:", err)
			return 1
		}
		// Left running on purpose: the bridge must end it.
	case "daemon":
		// A daemon as Cline's hub: a session of its own, no environment
		// of the agent's (so no run marker), its parent gone at once, so
		// that it is adopted by the nearest subreaper.
		d := exec.Command("sh", "-c", "env -i setsid sleep 3600 </dev/null >/dev/null 2>&1 &")
		if err := d.Run(); err != nil {
			fmt.Fprintln(stderr, "test-agent:", err)
			return 1
		}
	case "half-line":
		// Half of its result line, then a clean exit.
		fmt.Fprint(stdout, `{"type":"result","status":"compl`)
		return 0
	case "leak-state":
		// Fails when a file an earlier session left in its home is still
		// there: the bridge must give every session a fresh one.
		home, _ := os.UserHomeDir()
		mark := filepath.Join(home, "conform-left-this")
		if _, err := os.Stat(mark); err == nil {
			fmt.Fprintln(stderr, "test-agent: found state an earlier session left in", home)
			return 5
		}
		_ = os.WriteFile(mark, []byte("x"), 0o600)
		if tmp := os.Getenv("TMPDIR"); tmp != "" {
			_ = os.WriteFile(filepath.Join(tmp, "conform-left-this"), []byte("x"), 0o600)
		}
	case "flood":
		line := strings.Repeat("x", 1<<16) + "\n"
		for i := 0; i < 1<<12; i++ {
			if _, err := io.WriteString(stdout, line); err != nil {
				return 1
			}
		}
		return 0
	default:
		fmt.Fprintf(stderr, "test-agent: unknown --misbehave %q\n", c.misbehave)
		return 2
	}
	m, err := newModel(c)
	if err != nil {
		fmt.Fprintln(stderr, "test-agent:", err)
		return 2
	}
	if c.misbehave == "ignore-hooks" {
		// Its hook system is configured, and it runs nothing.
		c.settings = ""
	}
	hk, err := loadHooks(c.settings, fmt.Sprintf("test-agent-%d", os.Getpid()), stderr)
	if err != nil {
		fmt.Fprintln(stderr, "test-agent: hooks:", err)
		return 2
	}
	tr, flush, err := newTracer(c.otlpURL)
	if err != nil {
		fmt.Fprintln(stderr, "test-agent: OTLP:", err)
		return 2
	}
	var tools []tool
	var sess *mcp.ClientSession
	if c.mcpURL != "" && c.misbehave != "no-mcp" {
		cl := mcp.NewClient(&mcp.Implementation{Name: "conform-test-agent", Version: "0"}, nil)
		sess, err = cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.mcpURL, MaxRetries: -1}, nil)
		if err != nil {
			fmt.Fprintln(stderr, "test-agent: MCP:", err)
			return 1
		}
		defer sess.Close()
		lt, err := sess.ListTools(ctx, nil)
		if err != nil {
			fmt.Fprintln(stderr, "test-agent: MCP tools/list:", err)
			return 1
		}
		for _, t := range lt.Tools {
			sc, _ := json.Marshal(t.InputSchema)
			var schema map[string]any
			_ = json.Unmarshal(sc, &schema)
			tools = append(tools, tool{name: c.toolPrefix + t.Name, description: t.Description, schema: schema})
		}
	}
	if c.ownTool != "" {
		tools = append(tools, tool{name: c.ownTool, description: "a tool of the agent's own", schema: map[string]any{"type": "object", "properties": map[string]any{}}})
	}
	a := &agent{c: c, m: m, sess: sess, tools: tools, hooks: hk, tr: tr, stderr: stderr}
	res := a.session(ctx)
	flush()
	if c.misbehave == "exit-at-limit" {
		// As Qwen Code at --max-session-turns: a documented exit status,
		// no result line.
		fmt.Fprintln(stderr, "test-agent: turn limit reached, exiting with status 53, as asked")
		return 53
	}
	b, _ := json.Marshal(res)
	fmt.Fprintln(stdout, string(b))
	return 0
}

type tool struct {
	name, description string
	schema            map[string]any
}

type call struct {
	id, name string
	input    json.RawMessage
}

type result struct {
	id, name, text string
	isError        bool
}

// step is one entry of the agent's history.
type step struct {
	user    string   // a user message
	text    string   // the model's text
	calls   []call   // the model's calls
	results []result // the results of those calls
}

type reply struct {
	text          string
	calls         []call
	input, output int64
}

type model interface {
	send(ctx context.Context, system string, hist []step, tools []tool) (reply, error)
}

type outcome struct {
	Type         string `json:"type"`
	Status       string `json:"status"`
	Text         string `json:"text,omitempty"`
	Error        string `json:"error,omitempty"`
	Turns        int    `json:"turns"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
}

// phoneHome tries to reach beyond loopback; every try must fail at once
// inside the bridge's namespace (addresses from the documentation ranges).
func phoneHome(stderr io.Writer) {
	_, err := net.LookupHost("telemetry.conform.invalid")
	fmt.Fprintln(stderr, "test-agent: phone home: lookup:", err)
	if c, err := net.DialTimeout("tcp", "203.0.113.7:443", 2*time.Second); err == nil {
		c.Close()
	} else {
		fmt.Fprintln(stderr, "test-agent: phone home: tcp:", err)
	}
	if c, err := net.Dial("udp", "198.51.100.9:9999"); err == nil {
		_, _ = c.Write([]byte("hello"))
		c.Close()
	}
}

// badRequest sends a request its dialect does not allow (no model, no
// messages) and ends as if nothing were wrong.
func badRequest(c config, stdout, stderr io.Writer) int {
	path := map[string]string{"anthropic": "/v1/messages", "openai-chat": "/v1/chat/completions", "openai-responses": "/v1/responses", "gemini": "/v1beta/models/m:generateContent"}[c.dialect]
	resp, err := http.Post(strings.TrimSuffix(c.baseURL, "/")+path, "application/json", strings.NewReader(`{"messages":[],"contents":[]}`))
	if err != nil {
		fmt.Fprintln(stderr, "test-agent:", err)
		return 1
	}
	resp.Body.Close()
	fmt.Fprintln(stdout, `{"type":"result","status":"completed","text":"nothing to see"}`)
	return 0
}

// halfRequest announces a body it never finishes and exits.
func halfRequest(c config, stderr io.Writer) int {
	u := strings.TrimPrefix(strings.TrimPrefix(c.baseURL, "http://"), "https://")
	u, _, _ = strings.Cut(u, "/")
	conn, err := net.DialTimeout("tcp", u, 5*time.Second)
	if err != nil {
		fmt.Fprintln(stderr, "test-agent:", err)
		return 1
	}
	fmt.Fprintf(conn, "POST /v1/messages HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"model\":\"m\",", u)
	time.Sleep(100 * time.Millisecond)
	conn.Close()
	fmt.Fprintln(stderr, "test-agent: sent half a request and left")
	os.Exit(4)
	return 4
}
