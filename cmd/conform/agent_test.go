package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestAgentRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"agent", "no-such-agent"}, `no profile named "no-such-agent"`},
		{[]string{"agent", "--kernel", "x", "claude-code"}, "sets --kernel itself"},
		{[]string{"agent"}, "accepts 1 arg"},
		{[]string{"agent-kernel", "--profile", "/nonexistent.json"}, "profile"},
		// The observation file makes a run honour the bridge's readings
		// (bridge.hook_points): no flag of run or agent may set it.
		{[]string{"run", "--kernel-observations", "o.jsonl"}, "unknown flag: --kernel-observations"},
		{[]string{"agent", "--kernel-observations", "o.jsonl", "claude-code"}, "unknown flag: --kernel-observations"},
	} {
		var out, errb bytes.Buffer
		code := execute(context.Background(), tc.args, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q", tc.args, code, errb.String(), exitUsage, tc.want)
		}
	}
}

func TestAgentKernelCommandIsIsolated(t *testing.T) {
	argv, err := agentKernelArgv("p.json", "bin", false)
	if err != nil {
		t.Skipf("no namespace here: %v", err)
	}
	if !strings.HasSuffix(argv[0], "unshare") || argv[1] != "--net" || argv[2] != "--mount" {
		t.Fatalf("argv = %v, want unshare --net --mount first", argv)
	}
	if argv[len(argv)-1] != "--watch-lookups" {
		t.Fatalf("argv = %v, want the lookups watched (the stub resolver)", argv)
	}
	argv, _ = agentKernelArgv("p.json", "bin", true)
	if strings.HasSuffix(argv[0], "unshare") || argv[len(argv)-1] != "--no-isolation" {
		t.Fatalf("--no-isolation argv = %v", argv)
	}
	line, err := quoteArgv([]string{"/a b/conform", "x"})
	if err != nil || line != "'/a b/conform' 'x'" {
		t.Fatalf("quoteArgv = %q, %v", line, err)
	}
	if _, err := quoteArgv([]string{"it's"}); err == nil {
		t.Fatal("a quote in a path must be refused")
	}
}
