package mutants

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
	pcmodel "github.com/agentconform/conform/pluginconform/model"
	refmodel "github.com/agentconform/conform/refplugin/model"
)

// TestMain lets the test binary be the plugin under test and the checker:
// "<binary> serve NAME" serves the reference ("reference"), a mutant or a
// variant; "<binary> check NAME" runs conform plugin against "<binary>
// serve NAME" and prints the verdicts, so the matrix checks several at
// once in processes of their own (rapid's settings are per process).
func TestMain(m *testing.M) {
	switch {
	case len(os.Args) == 3 && os.Args[1] == "serve":
		f, rd, ok := ByName(os.Args[2])
		if !ok {
			fmt.Fprintln(os.Stderr, "no mutant named", os.Args[2])
			os.Exit(2)
		}
		refmodel.ServeWith(f, rd)
		os.Exit(0)
	case len(os.Args) == 3 && os.Args[1] == "check":
		os.Exit(check(os.Args[2]))
	}
	os.Exit(m.Run())
}

// verdict is what a check process prints.
type verdict struct {
	Bad     []string          `json:"bad"`
	Reasons map[string]string `json:"reasons"`
	Level   string            `json:"level"`
	Label   string            `json:"label"`
	Seconds float64           `json:"seconds"`
}

func check(name string) int {
	start := time.Now()
	rep, _, err := pcmodel.Run(context.Background(), category.Options{
		Argv: []string{os.Args[0], "serve", name}, Env: launch.BaseEnv(nil),
		Cases: 25, Seed: 15, CallTimeout: 3 * time.Second,
	})
	if rep == nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	v := verdict{Reasons: map[string]string{}, Level: rep.Compliance.Level, Label: rep.Compliance.Label, Seconds: time.Since(start).Seconds()}
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
