package hookrelay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultTimeout bounds one forward. The agent's own hook timeout (60 s by
// default in Claude Code and Gemini CLI; none in Codex) is set above it by
// the config writers, so the relay always answers first.
const DefaultTimeout = 30 * time.Second

// Main is `conform hook-relay --url URL --agent AGENT --event EVENT
// [--subscriber ID] [--timeout D]`: it forwards the hook's stdin JSON to the agent kernel and
// prints the decision in the agent's format. It never hangs: every forward
// has a timeout, and a kernel that cannot answer is handled by the failure
// policy in the package doc.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hook-relay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	url := fs.String("url", "", "the agent kernel's hook endpoint (http://127.0.0.1:PORT/...)")
	agent := fs.String("agent", "", "claude-code, codex or gemini-cli")
	event := fs.String("event", "", "the agent's hook event (PreToolUse, BeforeTool, ...)")
	timeout := fs.Duration("timeout", DefaultTimeout, "how long to wait for the kernel")
	subscriber := fs.String("subscriber", "", "the conform subscriber this hook entry stands for (none: the point's whole chain)")
	out := func(o Output) int {
		_, _ = stdout.Write(o.Stdout)
		if o.Stderr != "" {
			_, _ = fmt.Fprintln(stderr, o.Stderr)
		}
		return o.Code
	}
	if err := fs.Parse(args); err != nil {
		return out(failure(*agent, *event, fmt.Sprintf("bad arguments: %v", err)))
	}
	switch {
	case !KnownAgent(*agent):
		return out(failure(*agent, *event, fmt.Sprintf("unknown --agent %q (claude-code, codex or gemini-cli)", *agent)))
	case *event == "":
		return out(failure(*agent, *event, "no --event"))
	case !strings.HasPrefix(*url, "http://") && !strings.HasPrefix(*url, "https://"):
		return out(failure(*agent, *event, fmt.Sprintf("--url %q is not an http URL", *url)))
	case *timeout <= 0:
		return out(failure(*agent, *event, fmt.Sprintf("--timeout %v is not positive", *timeout)))
	}
	// One deadline for the whole relay, stdin and forward together, so the
	// agent's own hook timeout (set above it) never fires first.
	deadline := time.Now().Add(*timeout)
	in, err := readStdin(stdin, *timeout)
	switch {
	case err != nil:
		return out(failure(*agent, *event, fmt.Sprintf("reading stdin: %v", err)))
	case len(in) > maxBody:
		return out(failure(*agent, *event, fmt.Sprintf("stdin is larger than %d bytes", maxBody)))
	case !json.Valid(in):
		return out(failure(*agent, *event, "stdin is not JSON"))
	}
	d, err := forward(*url, deadline, *timeout, envelope{Agent: *agent, Event: *event, Subscriber: *subscriber, Input: in})
	if err != nil {
		return out(failure(*agent, *event, err.Error()))
	}
	return out(Format(*agent, *event, d))
}

// failure applies the failure policy: closed (blocking) at an event that
// gates an action, open (a non-blocking hook error) elsewhere.
func failure(agent, event, msg string) Output {
	msg = "conform hook relay: " + msg
	if m, _ := PointOf(agent, event); m.Gates {
		return Output{Stderr: msg + " (failing closed: " + event + " is denied)", Code: exitBlocking}
	}
	return Output{Stderr: msg, Code: exitFailed}
}

func forward(url string, deadline time.Time, timeout time.Duration, env envelope) (Decision, error) {
	body, err := json.Marshal(env)
	if err != nil {
		return Decision{}, err
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Decision{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	// No proxy, whatever the environment says: the kernel is on loopback.
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Decision{}, fmt.Errorf("the agent kernel did not answer within %v", timeout)
		}
		return Decision{}, fmt.Errorf("the agent kernel is unreachable: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Decision{}, fmt.Errorf("reading the agent kernel's answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return Decision{}, fmt.Errorf("the agent kernel answered %s: %s", resp.Status, strings.TrimSpace(string(raw)))
	}
	var d Decision
	if err := json.Unmarshal(raw, &d); err != nil {
		return Decision{}, fmt.Errorf("the agent kernel's answer is not a decision: %v", err)
	}
	switch d.Outcome {
	case "", Allow, Deny, Changed, Failed, Abort:
	default:
		return Decision{}, fmt.Errorf("the agent kernel answered an unknown outcome %q", d.Outcome)
	}
	if d.Outcome == Changed && !json.Valid(d.Payload) {
		return Decision{}, errors.New("the agent kernel answered changed with no payload")
	}
	return d, nil
}

// readStdin reads the hook's input within the timeout: an agent that never
// closes the relay's stdin must not hang it (the reading goroutine is left
// behind; the relay process exits right after).
func readStdin(r io.Reader, timeout time.Duration) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxBody+1))
		ch <- result{b, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-ch:
		return res.b, res.err
	case <-t.C:
		return nil, fmt.Errorf("stdin was not closed within %v", timeout)
	}
}
