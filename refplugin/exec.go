package refplugin

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
)

// childArg marks the plugin binary run as exec's child process; the
// plugin needs nothing else on the machine to have a process to run.
const childArg = "refplugin-child"

// MaybeChild runs the child of exec and exits when os.Args asks for it;
// call it first thing in main (and in a test binary's TestMain).
func MaybeChild() {
	if len(os.Args) < 4 || os.Args[1] != childArg {
		return
	}
	w := os.Stdout
	if os.Args[2] == "stderr" {
		w = os.Stderr
	}
	// A line every 20 ms, like a process that works between its lines: a
	// cancel after the first line lands while the child still runs.
	for i, word := range os.Args[4:] {
		if i > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		w.WriteString(word + "\n")
	}
	if os.Args[3] == "hold" {
		time.Sleep(time.Minute)
	}
	os.Exit(0)
}

func (p *Provider) exec(ctx context.Context, call *toolv1.ToolCall, args map[string]any, out send) error {
	var words []string
	for _, w := range args["words"].([]any) {
		words = append(words, w.(string))
	}
	if p.faults.EmitsProcessCrashed && len(words) == 0 {
		return out(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_PROCESS_CRASHED, "the child crashed", nil))
	}
	streamName, _ := args["stream"].(string)
	if streamName != "stderr" {
		streamName = "stdout"
	}
	self, err := os.Executable()
	if err != nil {
		return out(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED, "cannot find the child program", map[string]any{"error": err.Error()}))
	}
	hold := "exit"
	if p.faults.CancelLeavesChild {
		hold = "hold" // the bug: a child that outlives its output
	}
	cmd := exec.Command(self, append([]string{childArg, streamName, hold}, words...)...)
	cmd.Dir = call.GetCallContext().GetWorkingDirectory()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return out(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED, "the child did not start", map[string]any{"error": err.Error()}))
	}
	if p.faults.CancelLeavesChild && len(words) == 0 {
		_ = cmd.Process.Kill()
	}
	stream := toolv1.OutputStream_OUTPUT_STREAM_STDOUT
	if streamName == "stderr" {
		stream = toolv1.OutputStream_OUTPUT_STREAM_STDERR
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text() + "\n"
		}
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait(); pw.Close() }()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return p.cancelExec(cmd, n, out)
		case line, ok := <-lines:
			if !ok {
				return p.finishExec(cmd, <-waited, n, out)
			}
			n++
			chunk := &toolv1.ToolEvent{Event: &toolv1.ToolEvent_OutputChunk_{OutputChunk: &toolv1.ToolEvent_OutputChunk{Stream: stream, Data: []byte(line)}}}
			if err := out(chunk); err != nil {
				return p.cancelExec(cmd, n, out)
			}
			if p.faults.CancelLeavesChild && n == len(words) {
				// The faulty exec stops reading once it has every line and
				// kills the child only on the way to a result.
				_ = cmd.Process.Kill()
			}
		}
	}
}

// cancelExec ends the child (unless the fault says otherwise) and reports,
// best effort, what had happened; never a result.
func (p *Provider) cancelExec(cmd *exec.Cmd, n int, out send) error {
	if !p.faults.CancelLeavesChild {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Process.Kill()
	}
	ev, err := partial(map[string]any{"note": "cancelled: the child was stopped after " + strconv.Itoa(n) + " lines; the output above is valid"})
	if err == nil {
		_ = out(ev)
	}
	return nil
}

func (p *Provider) finishExec(cmd *exec.Cmd, waitErr error, n int, out send) error {
	code := 0
	status := &toolv1.ToolEvent_ExitStatus{}
	var exitErr *exec.ExitError
	if errors.As(waitErr, &exitErr) {
		code = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := ws.Signal().String()
			status.Signal = &sig
		}
	} else if waitErr != nil {
		return out(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED, "waiting for the child failed", map[string]any{"error": waitErr.Error()}))
	}
	status.ExitCode = int32(code)
	ev := &toolv1.ToolEvent{Event: &toolv1.ToolEvent_ExitStatus_{ExitStatus: status}}
	if err := out(ev); err != nil {
		return nil
	}
	if p.faults.ExitStatusTwice {
		if err := out(ev); err != nil {
			return nil
		}
	}
	res, err := result(map[string]any{"exit_code": float64(code), "lines": float64(n)})
	if err != nil {
		return err
	}
	return out(res)
}
