//go:build !linux

package launch

// Descendants cannot tell a plugin's child processes here.
func Descendants(int) ([]int, bool) { return nil, false }

// Alive cannot tell here.
func Alive(int) bool { return false }
