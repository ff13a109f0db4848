package kernelkit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/kernelkit"
)

// A kernel without sub-agents answers every session/spawn -32601 (the kit
// does so for a Kernel that is no Spawner). It fails the SA rows that need
// a child, but the check that a spawn naming a returned call is refused
// with -32602 is not its to fail: the refusal says nothing about the stale
// call. Found on langchaingo and Genkit.
func TestNoSpawnNotBlamedForTheStaleCallCode(t *testing.T) {
	check := kernelkit.CheckOutgoing(func(err error) { t.Error(err) })
	l := kernelkit.Launcher("toy", func() kernelkit.Kernel { return toyKernel{} }, check)
	r, err := runner.Run(context.Background(), runner.Options{Launcher: l, Tags: "@SA-10", Concurrency: 2, ScenarioTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, sc := range r.Scenarios {
		for _, c := range sc.Checks {
			if !strings.Contains(c.Step, "named a call which had already returned") {
				continue
			}
			seen = true
			if c.Status == "fail" {
				t.Errorf("%s: %s", c.Step, c.Message)
			}
		}
	}
	if !seen {
		t.Error("no scenario ran the stale-call check")
	}
}
