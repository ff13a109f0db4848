package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const recordedTrace = "../../harness/bridge/otlp/testdata/agent-session.otlp.json"

func TestTraceCheckPassesTheRecordedTrace(t *testing.T) {
	var out, errb bytes.Buffer
	code := execute(context.Background(), []string{"trace", "check", recordedTrace}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"TA-17  pass (partial:", "HD-13  pass (partial:", "TA-32  not verifiable from outside", "agent.internal.cache×1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// A model call outside its turn fails TA-17 and only TA-17.
func TestTraceCheckFailsABrokenTrace(t *testing.T) {
	span := func(id, parent, role string, start, end int64) map[string]any {
		s := map[string]any{"traceId": "4bf92f350102030405060708090a0b0c", "spanId": id, "name": "s" + id,
			"startTimeUnixNano": start, "endTimeUnixNano": end,
			"attributes": []any{map[string]any{"key": "conform.role", "value": map[string]any{"stringValue": role}}}}
		if parent != "" {
			s["parentSpanId"] = parent
		}
		return s
	}
	doc := map[string]any{"resourceSpans": []any{map[string]any{"scopeSpans": []any{map[string]any{"spans": []any{
		// milliseconds: the span checks allow 5 ms of clock slack
		span("0000000000000001", "", "turn", 100e6, 200e6),
		span("0000000000000002", "0000000000000001", "model_call", 150e6, 250e6),
	}}}}}}
	raw, _ := json.Marshal(doc)
	file := filepath.Join(t.TempDir(), "trace.json")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := execute(context.Background(), []string{"trace", "check", "--json", file}, &out, &errb)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d: %s%s", code, exitFailed, out.String(), errb.String())
	}
	var got struct {
		Requirements []traceVerdict `json:"requirements"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, v := range got.Requirements {
		status[v.ID] = string(v.Status) + " " + v.Reason
	}
	if !strings.HasPrefix(status["TA-17"], "fail") || !strings.Contains(status["TA-17"], "model_call") || !strings.HasPrefix(status["HD-13"], "not_tested") {
		t.Errorf("verdicts %v", status)
	}
}

func TestTraceCheckBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"trace", "check", filepath.Join(t.TempDir(), "missing.json")},
		{"trace", "check", "../../go.mod"},
		{"trace", "check", "--role", "x=boss", recordedTrace},
		{"trace", "check", "--role", "noequals", recordedTrace},
	} {
		var out, errb bytes.Buffer
		if code := execute(context.Background(), args, &out, &errb); code != exitUsage || errb.Len() == 0 {
			t.Errorf("%v: exit %d stderr %q, want %d with a message", args, code, errb.String(), exitUsage)
		}
	}
}

func TestHookRelayCommandIsWired(t *testing.T) {
	var out, errb bytes.Buffer
	// Nothing listens on port 1 and stdin is not a hook event: the relay's
	// own failure policy answers (closed at PreToolUse), through cobra.
	code := execute(context.Background(), []string{"hook-relay", "--url", "http://127.0.0.1:1/", "--agent", "claude-code", "--event", "PreToolUse"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "conform hook relay:") {
		t.Errorf("exit %d stderr %q", code, errb.String())
	}
}
