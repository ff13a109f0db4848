package model

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
)

// TestNodeModelProvider checks the Node model provider of
// examples/node-plugin (model.js, written with @grpc/grpc-js; it registers
// no gRPC reflection): its category is told from which service answers
// Describe, and it passes every row it reaches; the capabilities it does
// not have are skipped, never failed.
func TestNodeModelProvider(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed, so the Node model provider (examples/node-plugin/model.js) is not checked")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "node-plugin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@grpc", "grpc-js")); err != nil {
		t.Skip("examples/node-plugin/node_modules is missing: run `npm ci` in examples/node-plugin to check the Node model provider")
	}
	opt := category.Options{Argv: []string{node, filepath.Join(dir, "model.js")}, Env: launch.BaseEnv(nil), Cases: 20, Seed: 11}
	c, err := category.Detect(context.Background(), opt)
	if err != nil || c.Name != "model" {
		t.Fatalf("detected %q, %v", c.Name, err)
	}
	rep, _, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range rep.Requirements {
		if q.Status == report.Fail || q.Status == report.Error {
			t.Errorf("%s %s: %s", q.ID, q.Status, q.Reason)
		}
	}
	for _, id := range []string{"MP-01", "MP-02", "MP-03", "MP-08", "MP-09", "MP-10", "MP-11", "MP-12", "MP-13", "MP-14", "MP-15", "MP-17", "MP-18", "MP-21", "MP-22", "MP-26", "MP-30", "MP-31", "MP-33"} {
		for _, q := range rep.Requirements {
			if q.ID == id && q.Status != report.Pass {
				t.Errorf("%s is %s: %s", id, q.Status, q.Reason)
			}
		}
	}
	if rep.Kernel.Name != "conform-node-model-example" {
		t.Errorf("Describe named it %q", rep.Kernel.Name)
	}
	t.Logf("%s", rep.Compliance.Label)
}
