package bridge

import (
	"os"
	"strconv"
	"strings"
)

// agentProcesses are the live processes carrying the marker of a run of
// this test process (run IDs start with the kernel's pid): agents other
// conform runs on the machine started are not this test's leftovers.
func agentProcesses() []string {
	own := runMarker + "=" + strconv.Itoa(os.Getpid()) + "-"
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !strings.Contains(string(env), own) {
			continue
		}
		if p, ok := readProc(pid); ok && !p.zombie {
			out = append(out, p.comm)
		}
	}
	return out
}
