package mutants

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/agentconform/conform/pluginconform"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/refplugin"
)

// TestMain lets the test binary be the plugin under test and the checker:
// "<binary> serve NAME" serves the reference plugin (NAME "reference") or a
// mutant, and is exec's child process too; "<binary> check NAME DIR" runs
// conform plugin against "<binary> serve NAME" and prints the verdicts, so
// the kill matrix can check several mutants at once in processes of their
// own (rapid's settings are per process).
func TestMain(m *testing.M) {
	refplugin.MaybeChild()
	switch {
	case len(os.Args) == 3 && os.Args[1] == "serve":
		f := refplugin.Faults{}
		if os.Args[2] != "reference" {
			mu, ok := ByName(os.Args[2])
			if !ok {
				fmt.Fprintln(os.Stderr, "no mutant named", os.Args[2])
				os.Exit(2)
			}
			f = mu.Faults
		}
		refplugin.Serve(f)
		os.Exit(0)
	case len(os.Args) == 4 && os.Args[1] == "check":
		os.Exit(check(os.Args[2], os.Args[3]))
	}
	os.Exit(m.Run())
}

// verdict is what a check process prints.
type verdict struct {
	Bad     []string          `json:"bad"`
	Reasons map[string]string `json:"reasons"`
	Level   string            `json:"level"`
	Label   string            `json:"label"`
}

func check(name, dir string) int {
	rep, _, err := pluginconform.Run(context.Background(), pluginconform.Options{
		Argv: []string{os.Args[0], "serve", name}, Env: launch.BaseEnv(nil),
		AllowEffects: dir, ProcessBacked: []string{"exec"},
		Cases: 40, HookCases: 10, Seed: 15,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	v := verdict{Reasons: map[string]string{}, Level: rep.Compliance.Level, Label: rep.Compliance.Label}
	for _, q := range rep.Requirements {
		v.Reasons[q.ID] = string(q.Status) + ": " + q.Reason
		if q.Status == "fail" || q.Status == "error" {
			v.Bad = append(v.Bad, q.ID)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
		return 2
	}
	return 0
}
