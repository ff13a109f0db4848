package model

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/refplugin"
	refmodel "github.com/agentconform/conform/refplugin/model"
)

// TestMain lets the test binary be the plugin under test: "<binary> serve
// NAME" serves the reference model provider, a fault of it, or one of the
// broken launchers below.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		serve(os.Args[2])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serve(name string) {
	switch name {
	case "reference":
		refmodel.Serve(refmodel.Faults{})
	case "tool":
		refplugin.Serve(refplugin.Faults{})
	case "hang":
		fmt.Fprintln(os.Stderr, "starting up, slowly")
		time.Sleep(time.Minute)
	case "hung-stream":
		refmodel.Serve(refmodel.Faults{HangOnLongPrompt: true})
	case "leaky":
		refmodel.Serve(refmodel.Faults{SecretInVendorError: true, SecretInLog: true})
	case "flood":
		refmodel.ServeWith(refmodel.Faults{}, refmodel.Readings{LogFlood: true})
	case "after-stop":
		refmodel.Serve(refmodel.Faults{EventAfterStop: true})
	case "unknown-code":
		refmodel.Serve(refmodel.Faults{UnknownCode: true})
	case "crash-on-cancel":
		refmodel.Serve(refmodel.Faults{CrashOnCancel: true})
	case "negative-usage":
		refmodel.Serve(refmodel.Faults{NegativeUsage: true})
	}
}

func options(t *testing.T, name string) category.Options {
	t.Helper()
	return category.Options{
		Argv: []string{os.Args[0], "serve", name}, Env: launch.BaseEnv(nil),
		Cases: 15, Seed: 7, StartTimeout: 30 * time.Second, CallTimeout: 5 * time.Second,
	}
}

func verdictsOf(t *testing.T, name string) (map[string]string, map[string]string, error) {
	t.Helper()
	rep, _, err := Run(context.Background(), options(t, name))
	if rep == nil {
		t.Fatalf("no report: %v", err)
	}
	st, why := map[string]string{}, map[string]string{}
	for _, q := range rep.Requirements {
		st[q.ID], why[q.ID] = string(q.Status), q.Reason
	}
	return st, why, err
}
