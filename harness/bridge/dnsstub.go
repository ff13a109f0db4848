package bridge

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// DNSStub is the namespace's resolver: a DNS server on loopback that
// records every name the agent looks up and answers NXDOMAIN, so a lookup
// beyond loopback is reported with its host (an observation) and nothing
// is sent anywhere. Inside the namespace there is no route out, so the
// machine's own resolver could not be reached anyway; the stub makes the
// attempt visible instead of a silent ENETUNREACH. Connections to an
// address the agent did not look up (a literal IP) fail with ENETUNREACH
// and are not seen: the reading bridge.lookups says so.
type DNSStub struct {
	// Addr is where it listens (UDP and TCP), an address of loopback.
	Addr string
	// OnQuery is called with each queried name (no trailing dot) and type.
	OnQuery func(name, qtype string)

	udp  net.PacketConn
	tcp  net.Listener
	wg   sync.WaitGroup
	once sync.Once
}

// Start listens on Addr (UDP and TCP) and serves until Close.
func (d *DNSStub) Start() error {
	pc, err := net.ListenPacket("udp", d.Addr)
	if err != nil {
		return err
	}
	// TCP on the port UDP got (Addr may ask for port 0).
	d.Addr = pc.LocalAddr().String()
	l, err := net.Listen("tcp", d.Addr)
	if err != nil {
		_ = pc.Close()
		return err
	}
	d.udp, d.tcp = pc, l
	d.wg.Add(2)
	go d.serveUDP()
	go d.serveTCP()
	return nil
}

// Close stops the stub.
func (d *DNSStub) Close() {
	d.once.Do(func() {
		if d.udp != nil {
			_ = d.udp.Close()
		}
		if d.tcp != nil {
			_ = d.tcp.Close()
		}
		d.wg.Wait()
	})
}

func (d *DNSStub) serveUDP() {
	defer d.wg.Done()
	buf := make([]byte, 4096)
	for {
		n, from, err := d.udp.ReadFrom(buf)
		if err != nil {
			return
		}
		if out, ok := d.answer(buf[:n]); ok {
			_, _ = d.udp.WriteTo(out, from)
		}
	}
}

func (d *DNSStub) serveTCP() {
	defer d.wg.Done()
	for {
		c, err := d.tcp.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			for {
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				var n uint16
				if binary.Read(c, binary.BigEndian, &n) != nil {
					return
				}
				q := make([]byte, n)
				if _, err := io.ReadFull(c, q); err != nil {
					return
				}
				out, ok := d.answer(q)
				if !ok {
					return
				}
				if binary.Write(c, binary.BigEndian, uint16(len(out))) != nil {
					return
				}
				if _, err := c.Write(out); err != nil {
					return
				}
			}
		}()
	}
}

// answer records the questions of one query and builds its NXDOMAIN
// answer; a message that is no query gets none.
func (d *DNSStub) answer(q []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil || h.Response {
		return nil, false
	}
	qs, err := p.AllQuestions()
	if err != nil {
		return nil, false
	}
	for _, x := range qs {
		if d.OnQuery != nil {
			d.OnQuery(strings.TrimSuffix(x.Name.String(), "."), strings.TrimPrefix(x.Type.String(), "Type"))
		}
	}
	rh := dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: dnsmessage.RCodeNameError}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, false
	}
	for _, x := range qs {
		if err := b.Question(x); err != nil {
			return nil, false
		}
	}
	out, err := b.Finish()
	return out, err == nil
}

// ErrSharedMounts: the process shares its mount namespace with its parent
// (conform agent), so
// pointing /etc/resolv.conf at the stub would change the machine's.
var ErrSharedMounts = errors.New("the agent kernel shares the machine's mount namespace (start it under unshare --net --mount)")
