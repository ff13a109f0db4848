package bridge

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// LoopbackUp sets lo up in the calling process's network namespace (what
// `ip link set lo up` does, by the SIOCSIFFLAGS ioctl).
func LoopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback up: socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: read flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

// Interfaces lists the network interfaces of the calling process's
// namespace, from /proc/self/net/dev.
func Interfaces() ([]string, error) {
	f, err := os.Open("/proc/self/net/dev")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.Contains(name, "|") {
			continue
		}
		out = append(out, strings.TrimSpace(name))
	}
	return out, sc.Err()
}

// Isolation proves that the process runs in a network namespace that holds
// only loopback, and brings loopback up. The answer names what was found.
func Isolation() (string, error) {
	ifs, err := Interfaces()
	if err != nil {
		return "", fmt.Errorf("list interfaces: %w", err)
	}
	if len(ifs) != 1 || ifs[0] != "lo" {
		return "", fmt.Errorf("not isolated: this network namespace holds %s, not only lo (run the agent kernel under `unshare --net`)", strings.Join(ifs, ", "))
	}
	if err := LoopbackUp(); err != nil {
		return "", err
	}
	return "netns: interfaces lo", nil
}

// CanUnshareNet says whether `unshare --net` can make a namespace here.
func CanUnshareNet() error {
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return fmt.Errorf("no network namespaces on this system: %w", err)
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("making a network namespace needs root (unshare --net); conform runs as uid %d", os.Geteuid())
	}
	return nil
}
