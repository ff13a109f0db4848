package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/steps"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/spec"
	"github.com/agentconform/conform/spec/wire"
)

// TestMain turns the test binary into a hostile kernel when CONFORM_HOSTILE
// names a misbehaviour, so the harness can be run against kernels that
// crash, hang, write garbage, flood, break the schema or leave processes
// behind.
func TestMain(m *testing.M) {
	if mode := os.Getenv("CONFORM_HOSTILE"); mode != "" {
		os.Exit(hostileKernel(mode))
	}
	os.Exit(m.Run())
}

// forever blocks a hostile kernel's goroutine until the harness kills it.
var forever = make(chan struct{})

// hostileKernel answers initialize properly and misbehaves on session/run.
func hostileKernel(mode string) int {
	notePID("kernel", os.Getpid())
	if mode == "deaf" {
		return deafKernel()
	}
	var conn *jsonrpc.Conn
	handle := func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case wire.MethodInitialize:
			if mode == "init-exit" {
				fmt.Fprintln(os.Stderr, "init-exit: leaving during initialize")
				os.Exit(4)
			}
			return hostileInit(mode), nil
		case wire.MethodSessionRun:
			return misbehave(ctx, conn, mode, req)
		case wire.MethodShutdown:
			if mode == "hang" || mode == "spawner" {
				<-forever
			}
			return wire.Empty{}, nil
		}
		if mode == "hang" || mode == "spawner" {
			<-forever
		}
		return nil, &jsonrpc.Error{Code: wire.CodeMethodNotFound, Message: "hostile kernel: no " + req.Method}
	}
	conn = jsonrpc.New(os.Stdin, os.Stdout, nil, handle, jsonrpc.Options{})
	conn.Start()
	<-conn.Done()
	if mode == "hang" || mode == "spawner" {
		// Even EOF on stdin does not end a hung kernel: only the harness's
		// kill does. (A pending timer keeps the runtime from calling this
		// a deadlock.)
		for {
			time.Sleep(time.Hour)
		}
	}
	return 0
}

func hostileInit(mode string) wire.InitializeResult {
	res := wire.InitializeResult{
		ProtocolVersion: wire.Version,
		Kernel:          wire.Peer{Name: "hostile-" + mode, Version: "0.0.1"},
		Capabilities:    []string{},
	}
	if mode == "glue" { // an adapter that labels its own glue (TestGlueLabel)
		res.Glue = []wire.GlueNote{{Requirement: "TA-10", Reason: "the adapter's wrapper crashes, not the loop"}, {Requirement: "ZZ-99", Reason: "no such row"}}
		// and claims the bridge's blindness to hooks, which it is not
		res.Readings = map[string]string{steps.BridgeHookPoints: "none"}
	}
	return res
}

func misbehave(ctx context.Context, conn *jsonrpc.Conn, mode string, req *jsonrpc.Request) (any, error) {
	var p wire.RunParams
	_ = json.Unmarshal(req.Params, &p)
	switch mode {
	case "crash", "glue":
		fmt.Fprintln(os.Stderr, "boom")
		os.Exit(3)
	case "hang":
		<-forever
	case "garbage":
		// Nothing else writes while session/run is pending.
		_, _ = os.Stdout.WriteString("this is not JSON-RPC, it is noise\n")
		<-forever
	case "flood":
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		_, _ = os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"event","params":{"blob":"`)
		for n := 0; n <= jsonrpc.DefaultMaxLine+256<<10; n += len(chunk) {
			if _, err := os.Stdout.Write(chunk); err != nil {
				break
			}
		}
		_, _ = os.Stdout.WriteString("\"}}\n")
		<-forever
	case "schema":
		_, err := conn.CallRaw(ctx, wire.MethodModelStream, badModelStream(p.SessionID))
		fmt.Fprintf(os.Stderr, "model/stream was answered with: %v\n", err)
		return completed(p.SessionID), nil
	case "spawner":
		cmd := exec.Command("sleep", "300")
		// The child keeps the kernel's stderr, so the harness's reader of
		// it cannot end until the whole process group is gone.
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "spawner:", err)
			os.Exit(5)
		}
		notePID("child", cmd.Process.Pid)
		<-forever
	}
	return nil, &jsonrpc.Error{Code: wire.CodeInternal, Message: "unknown hostile mode " + mode}
}

// deafKernel stops reading its stdin once a session starts and sends
// requests whose answers the harness cannot deliver: the harness's writes
// block on a full pipe while its scenario timeout runs out.
func deafKernel() int {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch m.Method {
		case wire.MethodInitialize:
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": hostileInit("deaf")})
			_, _ = os.Stdout.Write(append(b, '\n'))
		case wire.MethodSessionRun:
			w := bufio.NewWriter(os.Stdout)
			for i := 1; i <= 5000; i++ {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"model/stream","params":{"tools":"not-a-list"}}`+"\n", i)
			}
			_ = w.Flush()
			for {
				time.Sleep(time.Hour)
			}
		}
	}
}

// badModelStream is a model/stream request that is valid except for tools.
func badModelStream(session string) map[string]any {
	p := wire.ModelStreamParams{
		CallContext: wire.CallContext{SessionID: session, TurnID: "turn-1", WorkingDirectory: "/conform/work"},
		Purpose:     wire.PurposeTurn,
		Model:       "fake-model",
		Messages:    []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: "hi"}}}},
		Tools:       []wire.ToolSpec{}, AssembledContext: []wire.Contribution{}, Attempt: 1,
	}
	b, _ := json.Marshal(p)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["tools"] = "not-a-list"
	return m
}

func completed(session string) wire.RunSessionResult {
	return wire.RunSessionResult{
		SessionID: session, Status: wire.StatusCompleted, Turns: 1,
		FinalMessage: &wire.Message{Role: "assistant", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: "Done."}}},
	}
}

// notePID appends "kind pid" to CONFORM_HOSTILE_PIDFILE, so the test can
// check that nothing the kernel started outlives the run.
func notePID(kind string, pid int) {
	path := os.Getenv("CONFORM_HOSTILE_PIDFILE")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pidfile:", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %d\n", kind, pid)
}

// TestHostileFixtures checks the hostile kernel's messages are what the
// cases claim: the schema case breaks exactly one field, and its session/run
// answer and every initialize answer are valid.
func TestHostileFixtures(t *testing.T) {
	raw, _ := json.Marshal(badModelStream("s1"))
	if err := wire.Validate(wire.MethodModelStream, wire.PartParams, raw); err == nil || !strings.Contains(err.Error(), "at /tools") {
		t.Errorf("bad model/stream params: %v, want an error at /tools", err)
	}
	raw, _ = json.Marshal(completed("s1"))
	if err := wire.Validate(wire.MethodSessionRun, wire.PartResult, raw); err != nil {
		t.Errorf("completed session/run result: %v", err)
	}
	raw, _ = json.Marshal(hostileInit("x"))
	if err := wire.Validate(wire.MethodInitialize, wire.PartResult, raw); err != nil {
		t.Errorf("initialize result: %v", err)
	}
}

type hostileCase struct {
	mode string
	// one runs testdata/hostile (one scenario) instead of the embedded
	// suite's @TA-10 scenarios.
	one  bool
	want []string // every failure text contains all of these
}

// TestHostileKernels runs kernels that misbehave on session/run: each
// scenario gets an error verdict that says what the kernel did, the run
// goes on to the next scenario, and no process is left behind.
func TestHostileKernels(t *testing.T) {
	testrace.SkipUnderRace(t)
	if testing.Short() {
		t.Skip("runs subprocess kernels")
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep binary")
	}
	baseline := runtime.NumGoroutine()
	started := time.Now()
	suiteCount := countScenarios(t, features.FS, "TA-10")
	if suiteCount < 2 {
		t.Fatalf("@TA-10 selects %d scenarios of the embedded suite; the cases need 2 or more", suiteCount)
	}
	cases := []hostileCase{
		{mode: "crash", want: []string{"kernel exited during session/run", "exit status 3", "boom"}},
		{mode: "garbage", want: []string{"not a JSON-RPC message", "it is noise"}},
		{mode: "flood", want: []string{fmt.Sprintf("line longer than %d bytes", jsonrpc.DefaultMaxLine)}},
		{mode: "schema", want: []string{"model/stream params", "at /tools", "got string"}},
		{mode: "hang", want: []string{"no answer to session/run", "hang"}},
		{mode: "spawner", one: true, want: []string{"no answer to session/run", "hang"}},
		{mode: "deaf", one: true, want: []string{"no answer to session/run", "model/stream params"}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			opt := Options{Tags: "@TA-10"}
			want := suiteCount
			if c.one {
				opt = Options{FS: os.DirFS(filepath.Join("testdata", "hostile")), Root: "."}
				want = countScenarios(t, opt.FS, "TA-10")
			}
			r, pids := runHostile(t, c.mode, opt)
			if r.Kernel.Name != "hostile-"+c.mode {
				t.Errorf("kernel name %q", r.Kernel.Name)
			}
			if len(r.Scenarios) != want {
				t.Errorf("%d scenarios have a verdict, want %d: the run did not go on", len(r.Scenarios), want)
			}
			for _, s := range r.Scenarios {
				if s.Status != report.Error {
					t.Errorf("%s:%d %s: status %s, want error (%s)", s.File, s.Line, s.Name, s.Status, s.Failure)
					continue
				}
				for _, w := range c.want {
					if !strings.Contains(s.Failure, w) {
						t.Errorf("%s:%d: failure does not say %q:\n%s", s.File, s.Line, w, s.Failure)
					}
				}
			}
			kernels, children := 0, 0
			for _, p := range pids {
				if p.kind == "kernel" {
					kernels++
				} else {
					children++
				}
			}
			// The runner's first kernel serves the first scenario; each
			// faulted kernel is replaced for the next one.
			if kernels != want {
				t.Errorf("%d kernels started, want %d", kernels, want)
			}
			if c.mode == "spawner" && children != want {
				t.Errorf("%d children noted, want %d", children, want)
			}
			if len(r.Scenarios) > 0 {
				t.Logf("%s: %s", c.mode, firstLine(r.Scenarios[0].Failure))
			}
		})
	}
	t.Run("init-exit", func(t *testing.T) {
		pidfile := filepath.Join(t.TempDir(), "pids")
		r, err := runWithWatchdog(t, pidfile, Options{
			Launcher: hostileLauncher("init-exit", pidfile), Tags: "@TA-10", Concurrency: 1, ScenarioTimeout: 2 * time.Second,
		})
		if err == nil {
			t.Fatalf("Run succeeded against a kernel that exits during initialize (report %+v)", r)
		}
		// The report still comes, with every selected scenario in error and
		// the reason (PROTOCOL.md §4), so CI gets its JUnit file.
		var ierr *InitError
		if !errors.As(err, &ierr) {
			t.Errorf("error is %T, want *InitError", err)
		}
		if r == nil || len(r.Scenarios) == 0 {
			t.Fatalf("no report came with the start error")
		}
		for _, s := range r.Scenarios {
			if s.Status != report.Error || !strings.Contains(s.Failure, "kernel exited during initialize") {
				t.Errorf("%s: %s %q, want error naming the exit", s.Ref(), s.Status, s.Failure)
			}
		}
		for _, w := range []string{"could not be started", "kernel exited during initialize", "exit status 4", "init-exit: leaving"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error does not say %q: %v", w, err)
			}
		}
		expectGone(t, readPIDs(t, pidfile))
	})

	// How long they took is logged, not judged: each case checks that the
	// error names what its kernel did (a crash, noise, a flood), which a
	// fault noticed only when a timeout ran out would not, and a wall-clock
	// limit on the whole failed this test on a busy machine (issue 25).
	t.Logf("all hostile kernels: %v", time.Since(started).Round(time.Millisecond))
	// Every kernel is closed synchronously once it faulted; allow a few
	// goroutines of slack for godog and the runtime.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > baseline+5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > baseline+5 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after the hostile runs:\n%s", baseline, n, buf[:runtime.Stack(buf, true)])
	}
}

func hostileLauncher(mode, pidfile string) adapter.Subprocess {
	return adapter.Subprocess{
		Argv: []string{os.Args[0]},
		Env:  []string{"CONFORM_HOSTILE=" + mode, "CONFORM_HOSTILE_PIDFILE=" + pidfile},
	}
}

// runHostile runs the selected scenarios against one hostile mode and checks
// that Run itself succeeded and that every process it noted is gone.
func runHostile(t *testing.T, mode string, opt Options) (*report.Report, []notedPID) {
	t.Helper()
	pidfile := filepath.Join(t.TempDir(), "pids")
	opt.Launcher = hostileLauncher(mode, pidfile)
	opt.Concurrency = 1
	opt.ScenarioTimeout = 2 * time.Second
	start := time.Now()
	r, err := runWithWatchdog(t, pidfile, opt)
	t.Logf("%s: Run took %v", mode, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("Run returned %v; a misbehaving kernel must give error verdicts, not stop the run", err)
	}
	pids := readPIDs(t, pidfile)
	expectGone(t, pids)
	return r, pids
}

// runWithWatchdog fails the test instead of hanging when Run does not come
// back; it then kills whatever the kernels noted so the harness can unwind.
func runWithWatchdog(t *testing.T, pidfile string, opt Options) (*report.Report, error) {
	t.Helper()
	type result struct {
		r   *report.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := Run(context.Background(), opt)
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		return res.r, res.err
	case <-time.After(30 * time.Second):
	}
	buf := make([]byte, 1<<20)
	t.Errorf("Run did not return within 30s; goroutines:\n%s", buf[:runtime.Stack(buf, true)])
	for _, p := range readPIDs(t, pidfile) {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
	select {
	case res := <-done:
		return res.r, res.err
	case <-time.After(10 * time.Second):
		t.FailNow()
	}
	return nil, nil
}

type notedPID struct {
	kind string
	pid  int
}

func readPIDs(t *testing.T, path string) []notedPID {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []notedPID
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		kind, n, ok := strings.Cut(line, " ")
		pid, err := strconv.Atoi(n)
		if !ok || err != nil || pid <= 0 {
			t.Fatalf("bad pidfile line %q", line)
		}
		out = append(out, notedPID{kind, pid})
	}
	return out
}

// expectGone waits briefly for every noted process to be gone: kill(pid, 0)
// fails with ESRCH, or the process is a zombie (dead, waiting for an init
// that may not reap promptly).
func expectGone(t *testing.T, pids []notedPID) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range pids {
		for !processGone(p.pid) {
			if time.Now().After(deadline) {
				t.Errorf("%s process %d is still running after the run", p.kind, p.pid)
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	state := b[i+2]
	return state == 'Z' || state == 'X'
}

// countScenarios counts the scenarios under fsys that prove requirement id.
func countScenarios(t *testing.T, fsys fs.FS, id string) int {
	t.Helper()
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	_, infos, err := LoadFeatures(fsys, ".", cat)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, in := range infos {
		for _, r := range in.Requirements {
			if r == id {
				n++
				break
			}
		}
	}
	return n
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 240 {
		s = s[:240] + "…"
	}
	return s
}
