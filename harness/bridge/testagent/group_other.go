//go:build !unix

package testagent

import "os/exec"

// ownGroup: without process groups, cancellation kills the command alone.
func ownGroup(*exec.Cmd) {}
