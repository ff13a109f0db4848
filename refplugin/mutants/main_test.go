package mutants

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentconform/conform/refplugin"
)

// TestMain lets the test binary be the plugin under test: conform launches
// it as "<test binary> serve NAME" (NAME "reference" or a mutant), and as
// the child process of exec.
func TestMain(m *testing.M) {
	refplugin.MaybeChild()
	if len(os.Args) == 3 && os.Args[1] == "serve" {
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
	}
	os.Exit(m.Run())
}
