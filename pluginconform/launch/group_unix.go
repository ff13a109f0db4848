//go:build unix

package launch

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the plugin in a process group of its own, so killGroup
// reaches the processes it started too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
