package pluginconform

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agentconform/conform/refplugin"
)

// TestMain lets the test binary be the plugin under test: "<binary> serve
// NAME" serves the reference plugin or one of the broken launchers below.
func TestMain(m *testing.M) {
	refplugin.MaybeChild()
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		serve(os.Args[2])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serve(name string) {
	switch name {
	case "reference":
		refplugin.Serve(refplugin.Faults{})
	case "garbage":
		fmt.Println("hello, I am not a plugin")
		time.Sleep(time.Minute)
	case "hang":
		fmt.Fprintln(os.Stderr, "starting up, slowly")
		time.Sleep(time.Minute)
	case "crash":
		fmt.Fprintln(os.Stderr, "panic: no configuration file")
		os.Exit(3)
	case "leaky":
		refplugin.Serve(refplugin.Faults{SecretInError: true, SecretInLog: true, SecretInStderr: true, CrashOnCancel: true})
	}
}
