package bridge

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// UseResolver points this process's view of /etc/resolv.conf (and so its
// children's, the agent's) at a resolver on loopback, by a bind mount of a
// scratch file in dir. It refuses when the process shares its mount
// namespace with its parent: the mount would change the machine's resolver.
func UseResolver(dir, ip string) error {
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return fmt.Errorf("resolver: %w", err)
	}
	// The parent is conform agent, outside the namespaces (unshare execs
	// the agent kernel): the same mount namespace as the parent's means
	// none of the kernel's own. (init's is no witness: a sandbox may
	// already run in a mount namespace of its own, and /proc/1 may not be
	// readable from inside.)
	parent, err := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/ns/mnt")
	if err != nil || parent == self {
		return ErrSharedMounts
	}
	f := filepath.Join(dir, "resolv.conf")
	// One server, no search list (a lookup is the name the agent asked
	// for), one attempt: the stub answers at once.
	if err := os.WriteFile(f, []byte("nameserver "+ip+"\noptions attempts:1 timeout:1\n"), 0o644); err != nil {
		return fmt.Errorf("resolver: %w", err)
	}
	if err := unix.Mount(f, "/etc/resolv.conf", "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("resolver: bind %s over /etc/resolv.conf: %w", f, err)
	}
	return nil
}
