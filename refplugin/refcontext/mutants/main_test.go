package mutants

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agentconform/conform/pluginconform/contextprov"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/refplugin/refcontext"
	"github.com/agentconform/conform/refplugin/refkit/matrix"
)

// TestMain lets the test binary be the plugin under test and the checker:
// "<binary> serve NAME" serves a variant or a mutant; "<binary> check
// NAME" runs conform against "<binary> serve NAME" and prints the
// verdicts, so the kill matrix checks several at once, each in a process
// of its own (rapid's settings are per process).
func TestMain(m *testing.M) {
	switch {
	case len(os.Args) == 3 && os.Args[1] == "serve":
		mu, ok := ByName(os.Args[2])
		if !ok {
			fmt.Fprintln(os.Stderr, "no mutant named", os.Args[2])
			os.Exit(2)
		}
		refcontext.Serve(mu.Faults)
		os.Exit(0)
	case len(os.Args) == 3 && os.Args[1] == "check":
		os.Exit(check(os.Args[2]))
	}
	os.Exit(m.Run())
}

func check(name string) int {
	rep, _, err := contextprov.Run(context.Background(), contextprov.Options{
		Argv: []string{os.Args[0], "serve", name}, Env: launch.BaseEnv(nil), Cases: 15, Seed: 15,
		// No mutant here hangs: the timeouts only guard against a real
		// hang, and at load 30 on 2 cores a Recall took over the 10 s
		// default and was charged to five rows as collateral.
		StartTimeout: time.Minute, CallTimeout: time.Minute,
	})
	if rep == nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	v := matrix.Verdict{Reasons: map[string]string{}, Level: rep.Compliance.Level, Label: rep.Compliance.Label}
	for _, q := range rep.Requirements {
		v.Reasons[q.ID] = string(q.Status) + ": " + q.Reason
		switch q.Status {
		case "fail", "error":
			v.Bad = append(v.Bad, q.ID)
		case "pass":
			v.Passed = append(v.Passed, q.ID)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
		return 2
	}
	return 0
}
