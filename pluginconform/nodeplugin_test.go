package pluginconform

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/launch"
)

// TestNodePlugin checks the Node plugin of examples/node-plugin (written
// with @grpc/grpc-js, speaking the go-plugin handshake itself): a plugin
// conform did not write in Go passes every requirement it reaches.
func TestNodePlugin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed, so the Node plugin example (examples/node-plugin) is not checked")
	}
	dir, err := filepath.Abs(filepath.Join("..", "examples", "node-plugin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@grpc", "grpc-js")); err != nil {
		t.Skip("examples/node-plugin/node_modules is missing: run `npm ci` in examples/node-plugin to check the Node plugin")
	}
	rep, _, err := Run(context.Background(), Options{
		Argv: []string{node, filepath.Join(dir, "plugin.js")}, Env: launch.BaseEnv(nil),
		Cases: 30, HookCases: 8, Seed: 11,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range rep.Requirements {
		if q.Status == report.Fail || q.Status == report.Error {
			t.Errorf("%s %s: %s", q.ID, q.Status, q.Reason)
		}
	}
	for _, id := range []string{"PL-01", "PL-02", "PL-03", "PL-08", "PL-14", "PL-15", "PL-17", "PL-18", "PL-19", "PL-22", "PL-23", "PL-24", "PL-27", "PL-28", "PL-29", "PL-30"} {
		for _, q := range rep.Requirements {
			if q.ID == id && q.Status != report.Pass {
				t.Errorf("%s is %s: %s", id, q.Status, q.Reason)
			}
		}
	}
	if rep.Kernel.Name != "conform-node-plugin-example" {
		t.Errorf("Describe named it %q", rep.Kernel.Name)
	}
}
