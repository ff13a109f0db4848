package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/bridge"
	"github.com/agentconform/conform/internal/testrace"
)

// conform agent, as a user runs it, inside its namespace: an agent that
// looks a name up and tries a connection and a datagram beyond loopback
// (as agents' telemetry does) gets each refused inside the namespace, and
// the report says where it tried to go, with the host and the address; its
// scenario is still judged.
func TestAgentInItsNamespaceReportsWhereItTriedToGo(t *testing.T) {
	testrace.SkipUnderRace(t) // builds conform and runs whole agent sessions
	if err := bridge.CanUnshareNet(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no iproute2 ip to make every address local:", err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain to build conform")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "conform")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var p map[string]any
	b, err := os.ReadFile("../../testdata/profiles/testagent-anthropic.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	p["name"] = "testagent-phone-home"
	p["command"] = append(p["command"].([]any), "--misbehave", "phone-home")
	prof := filepath.Join(dir, "phone-home.json")
	b, _ = json.Marshal(p)
	if err := os.WriteFile(prof, b, 0o600); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(dir, "report.json")
	cmd := exec.Command(bin, "agent", prof, "--tags", "@TA-10", "-q", "--report-json", rep)
	cmd.Env = append(os.Environ(), "GOTELEMETRY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			t.Fatalf("conform agent: %v\n%s", err, out)
		}
	}
	var r struct {
		Kernel struct {
			Readings map[string]string `json:"readings"`
		} `json:"kernel"`
		Scenarios []struct {
			Name, Status string
			Failure      string
			Observations []struct{ Subject, What string } `json:"observations"`
		} `json:"scenarios"`
	}
	b, err = os.ReadFile(rep)
	if err != nil {
		t.Fatalf("no report: %v\n%s", err, out)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Kernel.Readings["bridge.connections"], "every address is local") {
		t.Errorf("bridge.connections = %q, want the connections watched", r.Kernel.Readings["bridge.connections"])
	}
	if len(r.Scenarios) == 0 {
		t.Fatalf("no scenario ran:\n%s", out)
	}
	for _, s := range r.Scenarios {
		if s.Status == "error" {
			t.Errorf("%s: error: %s", s.Name, s.Failure)
		}
		var all []string
		for _, o := range s.Observations {
			all = append(all, o.What)
		}
		joined := strings.Join(all, "\n")
		for _, want := range []string{`"telemetry.conform.invalid"`, "TCP connection to 203.0.113.7:443", "UDP datagram to 198.51.100.9:9999"} {
			if !strings.Contains(joined, want) {
				t.Errorf("%s: observations lack %s:\n%s", s.Name, want, joined)
			}
		}
	}
}
