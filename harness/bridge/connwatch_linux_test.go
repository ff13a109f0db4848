package bridge

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// attempt reads a SYN or a datagram to an address beyond loopback, and
// nothing else.
func TestAttemptReadsSYNsAndDatagramsBeyondLoopback(t *testing.T) {
	v4 := func(dst [4]byte, proto byte, l4 []byte) []byte {
		p := make([]byte, 20)
		p[0], p[9] = 0x45, proto
		copy(p[16:], dst[:])
		return append(p, l4...)
	}
	tcp := func(port uint16, flags byte) []byte {
		h := make([]byte, 20)
		h[2], h[3], h[13] = byte(port>>8), byte(port), flags
		return h
	}
	udp := func(port uint16) []byte { return []byte{0, 1, byte(port >> 8), byte(port), 0, 8, 0, 0} }
	v6 := make([]byte, 40)
	v6[0], v6[6] = 0x60, 17
	copy(v6[24:], net.ParseIP("2001:db8::1"))
	v6 = append(v6, udp(5353)...)
	cases := []struct {
		name        string
		p           []byte
		proto, addr string
	}{
		{"SYN", v4([4]byte{203, 0, 113, 7}, 6, tcp(443, 0x02)), "tcp", "203.0.113.7:443"},
		{"SYN-ACK", v4([4]byte{203, 0, 113, 7}, 6, tcp(443, 0x12)), "", ""},
		{"RST", v4([4]byte{203, 0, 113, 7}, 6, tcp(443, 0x04)), "", ""},
		{"loopback SYN", v4([4]byte{127, 0, 0, 1}, 6, tcp(8080, 0x02)), "", ""},
		{"datagram", v4([4]byte{8, 8, 8, 8}, 17, udp(53)), "udp", "8.8.8.8:53"},
		{"IPv6 datagram", v6, "udp", "[2001:db8::1]:5353"},
		{"truncated", []byte{0x45, 0}, "", ""},
		{"ICMP", v4([4]byte{8, 8, 8, 8}, 1, make([]byte, 8)), "", ""},
	}
	for _, c := range cases {
		proto, addr, ok := attempt(c.p)
		if proto != c.proto || addr != c.addr || ok != (c.proto != "") {
			t.Errorf("%s: got %q %q %v, want %q %q", c.name, proto, addr, ok, c.proto, c.addr)
		}
	}
}

// connWatchProbe runs inside `unshare --net`: it makes every address local,
// watches, and attempts connections beyond loopback and one on it. It
// prints what the watch saw, then how the TCP attempt ended.
func connWatchProbe() int {
	if _, err := Isolation(); err != nil {
		fmt.Println(err)
		return 1
	}
	if err := AnyIP(); err != nil {
		fmt.Println(err)
		return 1
	}
	var mu sync.Mutex
	var seen []string
	w := &ConnWatch{OnAttempt: func(proto, addr string) {
		mu.Lock()
		seen = append(seen, proto+" "+addr)
		mu.Unlock()
	}}
	if err := w.Start(); err != nil {
		fmt.Println(err)
		return 1
	}
	start := time.Now()
	_, tcpErr := net.DialTimeout("tcp", "203.0.113.7:443", 5*time.Second)
	took := time.Since(start)
	for _, a := range []string{"198.51.100.9:9999", "[2001:db8::1]:5353"} {
		if c, err := net.Dial("udp", a); err == nil {
			_, _ = c.Write([]byte("x"))
			c.Close()
		}
	}
	if l, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
			c.Close()
		}
		l.Close()
	}
	// Every attempt is queued on the packet socket by now (the sends
	// returned): Sync waits until the watch has reported them.
	w.Sync(10 * time.Second)
	w.Close()
	ifs, _ := Interfaces()
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("seen: %s\ntcp: %v in %v\ninterfaces: %s\n", strings.Join(seen, ", "), tcpErr, took.Round(time.Millisecond), strings.Join(ifs, " "))
	return 0
}

// Inside a namespace of its own the watch reports the TCP and UDP attempts
// beyond loopback (IPv4 and IPv6) with their addresses, not loopback
// traffic; the TCP attempt is refused at once; the namespace still holds
// lo alone.
func TestConnectionsBeyondLoopbackAreSeen(t *testing.T) {
	if err := CanUnshareNet(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no iproute2 ip:", err)
	}
	self, _ := os.Executable()
	out, err := exec.Command("unshare", "--net", "--", self, "connwatch-probe").CombinedOutput()
	if err != nil {
		t.Fatalf("unshare: %v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("probe said:\n%s", out)
	}
	seen := strings.Split(strings.TrimPrefix(lines[0], "seen: "), ", ")
	for _, want := range []string{"tcp 203.0.113.7:443", "udp 198.51.100.9:9999", "udp [2001:db8::1]:5353"} {
		if !slices.Contains(seen, want) {
			t.Errorf("the watch saw %v, not %q", seen, want)
		}
	}
	if strings.Contains(lines[0], "127.0.0.1") {
		t.Errorf("the watch reported loopback traffic: %s", lines[0])
	}
	if !strings.Contains(lines[1], "connection refused") {
		t.Errorf("the TCP attempt beyond loopback: %s, want refused inside the namespace", lines[1])
	}
	if lines[2] != "interfaces: lo" {
		t.Errorf("the namespace holds %s, want lo alone", lines[2])
	}
}
