package bridge

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Connections beyond loopback. In a namespace that holds only lo, a
// connection to a literal address fails at its route lookup, before any
// packet exists, so nothing could say where the agent tried to go. The
// watch makes every address local to the namespace (AnyIP routes on lo:
// `ip route add local 0.0.0.0/0 dev lo`, and ::/0 for IPv6), so an attempt
// becomes a packet on lo that nothing outside can see; the namespace's own
// stack refuses it at once (a TCP reset, an ICMP unreachable), and a packet
// socket on lo reports each TCP SYN and UDP datagram whose destination is
// not a loopback address. The namespace still holds lo alone: the proof of
// isolation does not change.

// AnyIP makes every IPv4 and IPv6 address local to this namespace's lo.
// It refuses outside a namespace that holds only lo, where it would
// capture the machine's traffic.
func AnyIP() error {
	ifs, err := Interfaces()
	if err != nil {
		return err
	}
	if len(ifs) != 1 || ifs[0] != "lo" {
		return fmt.Errorf("refusing to make every address local: this namespace holds %s, not only lo", strings.Join(ifs, ", "))
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		return fmt.Errorf("making every address local needs iproute2's ip: %w", err)
	}
	v4 := []string{"route", "add", "local", "0.0.0.0/0", "dev", "lo", "table", "local"}
	if out, err := exec.Command(ip, v4...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(v4, " "), err, strings.TrimSpace(string(out)))
	}
	// Where IPv6 is switched off there is no IPv6 route to take, and an
	// IPv6 attempt fails at once for want of one, unseen, as before.
	_ = exec.Command(ip, "-6", "route", "add", "local", "::/0", "dev", "lo", "table", "local").Run()
	return nil
}

// ConnWatch reports the connections attempted beyond loopback.
type ConnWatch struct {
	// OnAttempt gets "tcp" or "udp" and the destination address:port.
	OnAttempt func(proto, addr string)
	fd        int
	stopped   atomic.Bool
	done      chan struct{}
	// reading is held by the reader from each read to the report of what
	// it read, so that Sync can wait for a packet taken but not reported.
	reading sync.Mutex
}

// notLoopback passes IPv6 packets and IPv4 packets whose destination is not
// in 127.0.0.0/8, so the bridge's own loopback traffic (the model's
// streams) is never copied to the watch. A packet socket of type
// SOCK_DGRAM starts at the network header.
var notLoopback = []bpf.Instruction{
	bpf.LoadAbsolute{Off: 0, Size: 1},
	bpf.ALUOpConstant{Op: bpf.ALUOpShiftRight, Val: 4},
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: 4, SkipFalse: 3},
	bpf.LoadAbsolute{Off: 16, Size: 4},
	bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xff000000},
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x7f000000, SkipTrue: 2, SkipFalse: 1},
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: 6, SkipFalse: 1},
	bpf.RetConstant{Val: 0xffff},
	bpf.RetConstant{Val: 0},
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// Start opens the packet socket on lo. Call AnyIP first (or nothing but
// loopback traffic exists to see).
func (w *ConnWatch) Start() error {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
	if err != nil {
		return fmt.Errorf("packet socket: %w", err)
	}
	raw, err := bpf.Assemble(notLoopback)
	if err != nil {
		unix.Close(fd)
		return err
	}
	prog := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		prog[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}); err != nil {
		unix.Close(fd)
		return fmt.Errorf("packet filter: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: lo.Index}); err != nil {
		unix.Close(fd)
		return fmt.Errorf("bind to lo: %w", err)
	}
	// A blocked recvfrom is not woken by close: the read loop looks at
	// stopped between reads.
	tv := unix.NsecToTimeval((200 * time.Millisecond).Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		unix.Close(fd)
		return err
	}
	w.fd, w.done = fd, make(chan struct{})
	go w.read()
	return nil
}

// Close stops the watch.
func (w *ConnWatch) Close() {
	if w.done == nil || w.stopped.Swap(true) {
		return
	}
	<-w.done
	unix.Close(w.fd)
}

func (w *ConnWatch) read() {
	defer close(w.done)
	buf := make([]byte, 1<<16)
	for !w.stopped.Load() {
		if !w.readOne(buf) {
			return
		}
	}
}

// readOne reads and reports one packet; false when the socket failed.
func (w *ConnWatch) readOne(buf []byte) bool {
	w.reading.Lock()
	defer w.reading.Unlock()
	n, from, err := unix.Recvfrom(w.fd, buf, 0)
	if err != nil {
		return errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR)
	}
	// lo shows each packet twice, leaving and arriving.
	if ll, ok := from.(*unix.SockaddrLinklayer); !ok || ll.Pkttype != unix.PACKET_OUTGOING {
		return true
	}
	if proto, addr, ok := attempt(buf[:n]); ok && w.OnAttempt != nil {
		w.OnAttempt(proto, addr)
	}
	return true
}

// Sync returns once every packet queued when it was called has been
// reported (or after limit): a session's observations are flushed only
// after the attempts its agent made, however busy the machine.
func (w *ConnWatch) Sync(limit time.Duration) {
	if w.done == nil || w.stopped.Load() {
		return
	}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		n, err := unix.IoctlGetInt(w.fd, unix.SIOCINQ)
		if err != nil || n == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The reader may hold the last packet queued: wait for its report.
	w.reading.Lock()
	// (an empty critical section: the barrier)
	w.reading.Unlock()
}

// attempt reads an IP packet: a TCP SYN (not a SYN-ACK) or a UDP datagram
// to an address that is not loopback is an attempt to reach beyond it.
func attempt(p []byte) (proto, addr string, ok bool) {
	if len(p) < 1 {
		return "", "", false
	}
	var dst netip.Addr
	var next byte
	var l4 []byte
	switch p[0] >> 4 {
	case 4:
		ihl := int(p[0]&0x0f) * 4
		if len(p) < 20 || ihl < 20 || len(p) < ihl {
			return "", "", false
		}
		next, dst, l4 = p[9], netip.AddrFrom4([4]byte(p[16:20])), p[ihl:]
	case 6:
		if len(p) < 40 {
			return "", "", false
		}
		next, dst, l4 = p[6], netip.AddrFrom16([16]byte(p[24:40])), p[40:]
	default:
		return "", "", false
	}
	if dst.IsLoopback() || dst.Unmap().IsLoopback() {
		return "", "", false
	}
	port := func() string { return strconv.Itoa(int(l4[2])<<8 | int(l4[3])) }
	switch {
	case next == unix.IPPROTO_TCP && len(l4) >= 14 && l4[13]&0x02 != 0 && l4[13]&0x10 == 0:
		return "tcp", net.JoinHostPort(dst.String(), port()), true
	case next == unix.IPPROTO_UDP && len(l4) >= 8:
		return "udp", net.JoinHostPort(dst.String(), port()), true
	}
	return "", "", false
}
