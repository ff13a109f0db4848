package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec/wire"
)

// The protocol-break kernels of this file write raw lines, so that they can
// send what no JSON encoder would: duplicate keys, invalid UTF-8, a
// response with both result and error. CONFORM_PROTO names the break;
// CONFORM_PROTO_HARNESS turns the test binary into a harness that runs one
// scenario against a proto kernel and prints its report, so that the
// harness's peak memory can be measured alone.
func init() {
	if mode := os.Getenv("CONFORM_PROTO"); mode != "" {
		os.Exit(protoKernel(mode))
	}
	if mode := os.Getenv("CONFORM_PROTO_HARNESS"); mode != "" {
		os.Exit(protoHarness(mode))
	}
}

// protoOut writes one raw line at a time.
type protoOut struct{ w *bufio.Writer }

func (o protoOut) line(s string) {
	_, _ = o.w.WriteString(s)
	_ = o.w.WriteByte('\n')
	_ = o.w.Flush()
}

func (o protoOut) json(v any) {
	b, _ := json.Marshal(v)
	o.line(string(b))
}

func (o protoOut) result(id json.RawMessage, v any) {
	o.json(map[string]any{"jsonrpc": "2.0", "id": id, "result": v})
}

// protoKernel answers initialize and misbehaves as mode says.
func protoKernel(mode string) int {
	notePID("kernel", os.Getpid())
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := protoOut{bufio.NewWriterSize(os.Stdout, 64<<10)}
	flood := floodLines(mode)
	var initID json.RawMessage
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch m.Method {
		case wire.MethodInitialize:
			initID = m.ID
			if mode == "before-init" {
				out.line(`{"jsonrpc":"2.0","method":"event","params":{"session_id":"s0","kind":"hello","producer":"proto"}}`)
			}
			out.result(m.ID, hostileInit("proto-"+mode))
		case wire.MethodSessionRun:
			var p wire.RunParams
			_ = json.Unmarshal(m.Params, &p)
			protoRun(mode, out, m.ID, initID, p.SessionID, flood)
		case wire.MethodShutdown:
			out.result(m.ID, wire.Empty{})
			return 0
		}
	}
}

// protoBreaks are the lines each break mode writes while session/run is
// pending, before it answers it.
var protoBreaks = map[string]func(initID json.RawMessage, session string) string{
	"second-response": func(initID json.RawMessage, _ string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": initID, "result": hostileInit("proto-second-response")})
		return string(b)
	},
	"upper-case": func(_ json.RawMessage, s string) string {
		return `{"JSONRPC":"2.0","method":"event","params":{"session_id":"` + s + `","kind":"k","producer":"p"}}`
	},
	"repeated-key": func(_ json.RawMessage, s string) string {
		return `{"jsonrpc":"2.0","method":"event","params":{"session_id":"` + s + `","kind":"benign","kind":"evil","producer":"p"}}`
	},
	"bad-utf8": func(_ json.RawMessage, s string) string {
		return `{"jsonrpc":"2.0","method":"event","params":{"session_id":"` + s + "\",\"kind\":\"caf\xe9\",\"producer\":\"p\"}}"
	},
	"huge-number": func(_ json.RawMessage, s string) string {
		return `{"jsonrpc":"2.0","method":"cost/usage","params":{"session_id":"` + s + `","turn_id":"t1","model":"m",` +
			`"usage":{"input_tokens":1e400,"output_tokens":1},"cost_usd":0,"session_total_usd":0,"tier_index":0}}`
	},
}

// protoRun plays session/run for one mode.
func protoRun(mode string, out protoOut, id, initID json.RawMessage, session string, flood []byte) {
	switch {
	case protoBreaks[mode] != nil:
		out.line(protoBreaks[mode](initID, session))
	case mode == "result-and-error":
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": completed(session),
			"error": map[string]any{"code": -32603, "message": "both"}})
		out.line(string(b))
		return
	case flood != nil:
		// Prepared before initialize was answered, so that the kernel writes
		// it as fast as the pipe takes it: any slowness is conform's.
		// The session id goes in as the lines are written, so the first
		// ones leave at once.
		for rest := flood; len(rest) > 0; {
			i := bytes.Index(rest, []byte(floodSession))
			if i < 0 {
				_, _ = out.w.Write(rest)
				break
			}
			_, _ = out.w.Write(rest[:i])
			_, _ = out.w.WriteString(session)
			rest = rest[i+len(floodSession):]
		}
		_ = out.w.Flush()
	}
	out.result(id, completed(session))
}

// floodSession stands for the session id in a flood prepared before the
// session exists.
const floodSession = "@@session@@"

// floodLines prepares the notifications of a flood mode: "flood-N" is N
// small events, "bigflood-N" N events of 1 MiB each.
func floodLines(mode string) []byte {
	kind, count, _ := strings.Cut(mode, "-")
	n, _ := strconv.Atoi(count)
	var payload string
	switch kind {
	case "flood":
		payload = `{"i":%d}`
	case "bigflood":
		payload = `{"blob":"` + strings.Repeat("x", 1<<20) + `%.0d"}`
	default:
		return nil
	}
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"event","params":{"session_id":"%s","kind":"tick","producer":"flood","payload":`+payload+"}}\n", floodSession, i)
	}
	return b.Bytes()
}

// protoHarness runs testdata/hostile against the proto kernel named by mode
// and prints the report's scenarios as JSON on stdout.
func protoHarness(mode string) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	timeout, _ := time.ParseDuration(os.Getenv("CONFORM_PROTO_TIMEOUT"))
	r, err := Run(context.Background(), Options{
		Launcher:        protoLauncher(self, mode),
		FS:              os.DirFS(filepath.Join("testdata", "hostile")),
		Root:            ".",
		Concurrency:     1,
		ScenarioTimeout: timeout,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 2
	}
	b, _ := json.Marshal(protoHarnessOut{Scenarios: r.Scenarios, PeakRSS: peakRSS()})
	os.Stdout.Write(b)
	return 0
}

type protoHarnessOut struct {
	Scenarios []report.ScenarioResult
	PeakRSS   int64 // bytes; 0 where /proc/self/status is not available
}

// peakRSS is this process's own peak resident set size (VmHWM): the kernel
// it ran is another process and is not counted.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// runProtoHarness runs protoHarness in a subprocess and returns its
// scenarios and its own peak resident set size in bytes.
func runProtoHarness(t *testing.T, mode string, timeout time.Duration) ([]report.ScenarioResult, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CONFORM_PROTO_HARNESS="+mode, "CONFORM_PROTO_TIMEOUT="+timeout.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("harness subprocess: %v\n%s", err, stderr.String())
	}
	var out protoHarnessOut
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("harness output: %v\n%s", err, b)
	}
	if out.PeakRSS == 0 {
		t.Skip("no /proc/self/status: cannot measure the harness's own peak memory")
	}
	return out.Scenarios, out.PeakRSS
}

func protoLauncher(self, mode string) adapter.Subprocess {
	return adapter.Subprocess{Argv: []string{self}, Env: []string{"CONFORM_PROTO=" + mode}}
}

// TestHostileProtocolBreaks runs kernels that break the protocol while a
// session runs: each scenario ends in `error` at once, with a message that
// names the break, and no kernel process is left behind.
func TestHostileProtocolBreaks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subprocess kernels")
	}
	cases := []struct{ mode, want string }{
		{"second-response", "second response to initialize (id 1)"},
		{"result-and-error", "response to session/run (id 2) has both result and error"},
		{"upper-case", `member "JSONRPC" is not "jsonrpc": JSON-RPC member names are case-sensitive`},
		{"repeated-key", `repeated key: at /params: key "kind" appears twice`},
		{"bad-utf8", "line is not valid UTF-8"},
		{"huge-number", "cost/usage params: does not decode: at /usage/input_tokens: number 1e400 is not an int64"},
		{"flood-60000", "flood: the kernel sent more than 50000 messages in one scenario"},
	}
	fsys := os.DirFS(filepath.Join("testdata", "hostile"))
	want := countScenarios(t, fsys, "TA-10")
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			if protoRace && strings.HasPrefix(c.mode, "flood-") {
				t.Skip("50,000 messages under the race detector take minutes; TestFloodLimits (driver) covers the limit")
			}
			pidfile := filepath.Join(t.TempDir(), "pids")
			self, _ := os.Executable()
			l := protoLauncher(self, c.mode)
			l.Env = append(l.Env, "CONFORM_HOSTILE_PIDFILE="+pidfile)
			// The timeout is long: every case must end well before it,
			// because the break itself ends the scenario.
			r, err := runWithWatchdog(t, pidfile, Options{Launcher: l, FS: fsys, Root: ".", Concurrency: 1, ScenarioTimeout: 20 * time.Second})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(r.Scenarios) != want {
				t.Fatalf("%d scenarios have a verdict, want %d", len(r.Scenarios), want)
			}
			for _, s := range r.Scenarios {
				if s.Status != report.Error || !strings.Contains(s.Failure, c.want) {
					t.Errorf("%s: %s, want error saying %q:\n%s", s.Name, s.Status, c.want, s.Failure)
				}
				if strings.Contains(s.Failure, "hang") {
					t.Errorf("%s: the break was reported as a hang:\n%s", s.Name, s.Failure)
				}
			}
			expectGone(t, readPIDs(t, pidfile))
		})
	}
}

// TestHostileMessageBeforeInitialize: a kernel that sends anything before it
// answered initialize is named for it, whether the run stops at start-up or
// reports every scenario as an error.
func TestHostileMessageBeforeInitialize(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subprocess kernels")
	}
	pidfile := filepath.Join(t.TempDir(), "pids")
	self, _ := os.Executable()
	l := protoLauncher(self, "before-init")
	l.Env = append(l.Env, "CONFORM_HOSTILE_PIDFILE="+pidfile)
	r, err := runWithWatchdog(t, pidfile, Options{Launcher: l, FS: os.DirFS(filepath.Join("testdata", "hostile")), Root: ".", Concurrency: 1, ScenarioTimeout: 20 * time.Second})
	const want = "event sent before initialize was answered"
	switch {
	case err != nil:
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Run: %v, want it to say %q", err, want)
		}
	case len(r.Scenarios) == 0:
		t.Error("no error and no scenario")
	default:
		for _, s := range r.Scenarios {
			if s.Status != report.Error || !strings.Contains(s.Failure, want) {
				t.Errorf("%s: %s, want error saying %q:\n%s", s.Name, s.Status, want, s.Failure)
			}
		}
	}
	expectGone(t, readPIDs(t, pidfile))
}

// TestProtoFloodMemory measures conform's peak resident memory, in a
// harness subprocess of its own, while kernels flood one session: with
// 200,000 small notifications it must stay under 150 MB (it was 1 GB
// before the per-scenario limits), and a flood of 1 MiB messages ends at
// the byte limit.
func TestProtoFloodMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subprocess kernels")
	}
	if protoRace {
		t.Skip("memory under the race detector says nothing of conform's")
	}
	for _, c := range []struct {
		mode, want string
		maxRSS     int64
	}{
		{"flood-200000", "flood: the kernel sent more than 50000 messages in one scenario", 150 << 20},
		{"bigflood-100", "flood: the kernel sent more than 32 MiB of messages in one scenario", 0},
	} {
		start := time.Now()
		ss, rss := runProtoHarness(t, c.mode, time.Minute)
		if len(ss) != 1 {
			t.Fatalf("%s: %d scenarios", c.mode, len(ss))
		}
		t.Logf("%s: peak RSS %d MB, %v; %s: %s", c.mode, rss>>20, time.Since(start).Round(time.Millisecond), ss[0].Status, firstLine(ss[0].Failure))
		if ss[0].Status != report.Error || !strings.Contains(ss[0].Failure, c.want) {
			t.Errorf("%s: %s, want error saying %q:\n%s", c.mode, ss[0].Status, c.want, ss[0].Failure)
		}
		if c.maxRSS > 0 && rss > c.maxRSS {
			t.Errorf("%s: peak RSS %d MB, want under %d MB", c.mode, rss>>20, c.maxRSS>>20)
		}
	}
}

// TestFloodIsNotAHang: the kernel writes a flood at once (prepared in
// advance) and answers. Conform needs far longer than the scenario timeout
// of 400 ms to read it (about 30 µs a message: 1.3 s for 45,000 here, 2.7 s
// at load average 16), while it waits for the kernel's output only a few
// milliseconds in all (7 to 30 ms measured: over 10x under the timeout).
// The verdict is about what the kernel did (a flood, or its answer), never
// a hang of conform's making.
func TestFloodIsNotAHang(t *testing.T) {
	if testing.Short() {
		t.Skip("runs subprocess kernels")
	}
	n := 45_000
	if protoRace {
		n = 4_500 // as long to read under the race detector
	}
	for _, c := range []struct {
		mode string
		want string // in an error verdict; "" when the kernel's answer is judged
	}{
		{fmt.Sprintf("flood-%d", n), ""},
		{"flood-200000", "flood: the kernel sent more than 50000 messages"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			if protoRace && c.want != "" {
				t.Skip("50,000 messages under the race detector take minutes; TestFloodLimits (driver) covers the limit")
			}
			pidfile := filepath.Join(t.TempDir(), "pids")
			self, _ := os.Executable()
			l := protoLauncher(self, c.mode)
			l.Env = append(l.Env, "CONFORM_HOSTILE_PIDFILE="+pidfile)
			r, err := runWithWatchdog(t, pidfile, Options{Launcher: l, FS: os.DirFS(filepath.Join("testdata", "hostile")), Root: ".",
				Concurrency: 1, ScenarioTimeout: 400 * time.Millisecond})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, s := range r.Scenarios {
				if strings.Contains(s.Failure, "hang") || (s.Status == report.Error) != (c.want != "") || !strings.Contains(s.Failure, c.want) {
					t.Errorf("%s: %s, want no hang and an error only for a flood (%q):\n%s", s.Name, s.Status, c.want, s.Failure)
				}
			}
			expectGone(t, readPIDs(t, pidfile))
		})
	}
}
