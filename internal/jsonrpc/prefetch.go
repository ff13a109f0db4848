package jsonrpc

import "io"

// prefetchChunks bounds what is read ahead of the read loop: this many
// reads of up to 64 KiB, 1 MiB at most per connection.
const prefetchChunks = 16

// prefetch reads the peer's output ahead of the read loop. A peer that
// writes faster than we handle its messages blocks on a full pipe; with the
// pipe drained ahead of need, it is woken while the loop still has its
// earlier output to handle, so the loop waits only when the peer has
// written nothing new. That makes Waited a measure of the peer, not of our
// own pace or of how long the operating system takes to wake a blocked
// writer on a loaded machine.
type prefetch struct {
	c      *Conn
	r      io.Reader
	chunks chan chunk
	cur    []byte
	err    error
}

type chunk struct {
	b   []byte
	err error
}

func newPrefetch(c *Conn, r io.Reader) *prefetch {
	return &prefetch{c: c, r: r, chunks: make(chan chunk, prefetchChunks)}
}

// fill runs from the start of the read loop until the peer's output ends or
// the connection is closed.
func (p *prefetch) fill() {
	defer close(p.chunks)
	buf := make([]byte, 64<<10)
	for {
		n, err := p.r.Read(buf)
		if n > 0 || err != nil {
			select {
			case p.chunks <- chunk{append([]byte(nil), buf[:n]...), err}:
			case <-p.c.done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *prefetch) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		var ch chunk
		var ok bool
		select {
		case ch, ok = <-p.chunks:
		default:
			start := p.c.opt.Now().UnixNano()
			p.c.readAt.Store(start)
			ch, ok = <-p.chunks
			p.c.readAt.Store(0)
			p.c.waited.Add(p.c.opt.Now().UnixNano() - start)
		}
		if !ok {
			ch.err = ErrClosed
		}
		p.cur, p.err = ch.b, ch.err
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}
