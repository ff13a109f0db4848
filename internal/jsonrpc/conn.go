package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxLine caps one message; a peer that writes a longer line is
// violating the protocol.
const DefaultMaxLine = 8 << 20

// Part says which part of a message is validated.
type Part int

const (
	Params Part = iota
	Result
)

func (p Part) String() string {
	if p == Result {
		return "result"
	}
	return "params"
}

// Request is an incoming request or notification.
type Request struct {
	ID     json.RawMessage // nil for notifications
	Method string
	Params json.RawMessage
	// Seq numbers every message read on the connection, in arrival order.
	Seq int64
	// Note is set by Options.Arrive for the handler's use.
	Note any
}

// IsNotification reports whether no answer is expected.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Handler serves incoming requests. For notifications the result is ignored.
// Each request runs in its own goroutine; ctx is cancelled when the peer sends
// $/cancelRequest for it or the connection closes.
type Handler func(ctx context.Context, req *Request) (any, error)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Violation is a protocol violation by the peer.
type Violation struct {
	What string // short description of what the peer did
	Line []byte // the offending line, truncated
}

func (v *Violation) Error() string {
	if len(v.Line) == 0 {
		return "protocol violation: " + v.What
	}
	return fmt.Sprintf("protocol violation: %s: %q", v.What, v.Line)
}

// ErrClosed is returned by calls on a closed connection.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Options tune a connection.
type Options struct {
	MaxLine int
	// Validate checks the raw params of incoming requests and the raw results
	// of responses to our calls. A failure is a Violation.
	Validate func(method string, part Part, raw json.RawMessage) error
	// OnViolation learns of every violation by the peer.
	OnViolation func(*Violation)
	// Arrive, when set, sees every incoming request and notification in the
	// read loop, in arrival order, before its handler runs. It must not
	// block. The recorder uses it so the log's order is the arrival order.
	Arrive func(*Request)
	// Handshake makes our first call a handshake: a request or
	// notification from the peer before that call is answered is a
	// violation (conform.wire/v1: nothing before initialize is answered).
	Handshake bool
	// Now is the clock of Waited; default time.Now.
	Now func() time.Time
}

// Conn is one end of a conversation.
type Conn struct {
	r       *bufio.Reader
	w       io.Writer
	closer  io.Closer
	handler Handler
	opt     Options

	wmu    sync.Mutex
	rider  []byte // a request to write after the next message, in its write (CallWithNext)
	nextID atomic.Int64
	waited atomic.Int64 // nanoseconds the read loop waited for the peer's output
	readAt atomic.Int64 // start of the wait in progress (Now in ns), 0 when none
	ahead  *prefetch

	// read loop only
	seq       int64
	handshook bool

	mu        sync.Mutex
	idle      *sync.Cond // signalled when a served request's reply is written
	serving   int        // requests being served, reply not yet written
	first     string     // method of our first call
	pending   map[string]*pending
	abandoned map[string]string // id → method of calls given up, answer not yet seen
	answered  map[string]string // id → method of the last recentAnswers answered calls
	incoming  map[string]incoming
	closed    bool
	err       error
	done      chan struct{}
}

// incoming is a request from the peer that is being served.
type incoming struct {
	method string
	cancel context.CancelFunc
}

type pending struct {
	method string
	ch     chan response
}

type response struct {
	result json.RawMessage
	line   []byte // the whole response, for violation reports
	err    error
}

type wireMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// New makes a connection reading r and writing w; closer (may be nil) is
// closed with the connection. Call Start to begin reading.
func New(r io.Reader, w io.Writer, closer io.Closer, h Handler, opt Options) *Conn {
	if opt.MaxLine <= 0 {
		opt.MaxLine = DefaultMaxLine
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	c := &Conn{
		w: w, closer: closer, handler: h, opt: opt,
		pending: map[string]*pending{}, abandoned: map[string]string{}, answered: map[string]string{},
		incoming: map[string]incoming{}, done: make(chan struct{}),
	}
	c.ahead = newPrefetch(c, r)
	c.r = bufio.NewReaderSize(c.ahead, 64<<10)
	c.idle = sync.NewCond(&c.mu)
	return c
}

// WaitOthers blocks until every request being served, other than the
// caller's own, has had its reply written. A server answering shutdown uses
// it so that no earlier answer is lost when the connection closes.
func (c *Conn) WaitOthers() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.serving > 1 && !c.closed {
		c.idle.Wait()
	}
}

// Start runs the read loop in a goroutine.
func (c *Conn) Start() { go c.readLoop() }

// Done is closed when the connection ends.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (nil for a clean EOF or Close).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection; pending calls fail with ErrClosed.
func (c *Conn) Close() error {
	c.shutdown(nil)
	return nil
}

// CloseWith ends the connection because of err (a peer that floods, say):
// Err returns it and pending calls fail with ErrClosed wrapping it. It may
// be called from Options.Arrive.
func (c *Conn) CloseWith(err error) { c.shutdown(err) }

func (c *Conn) shutdown(err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.idle.Broadcast()
	c.err = err
	pend := c.pending
	c.pending = map[string]*pending{}
	for _, in := range c.incoming {
		in.cancel()
	}
	c.mu.Unlock()
	for _, p := range pend {
		e := ErrClosed
		if err != nil {
			e = fmt.Errorf("%w: %v", ErrClosed, err)
		}
		p.ch <- response{err: e}
	}
	if c.closer != nil {
		c.closer.Close()
	}
	close(c.done)
}

func (c *Conn) violation(what string, line []byte) *Violation {
	if len(line) > 200 {
		line = append(append([]byte{}, line[:200]...), "…"...)
	}
	v := &Violation{What: what, Line: line}
	if c.opt.OnViolation != nil {
		c.opt.OnViolation(v)
	}
	return v
}

func (c *Conn) write(m wireMsg) error {
	b, err := encode(m)
	if err != nil {
		return err
	}
	return c.writeLine(b, 0)
}

// writeLine writes line b and its newline, then the request riding on the
// next write (CallWithNext); with apart > 0 the newline goes in a write of
// its own, apart after the line, and nothing else is written in between.
func (c *Conn) writeLine(b []byte, apart time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	end := append([]byte{'\n'}, c.rider...)
	c.rider = nil
	if apart <= 0 {
		_, err := c.w.Write(append(b, end...))
		return err
	}
	if _, err := c.w.Write(b); err != nil {
		return err
	}
	t := time.NewTimer(apart)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.done:
		return ErrClosed
	}
	_, err := c.w.Write(end)
	return err
}

// Call sends a request and decodes the result into result (may be nil). When
// ctx ends first, the peer is told with $/cancelRequest and ctx.Err() is
// returned.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return c.violation(fmt.Sprintf("%s result does not decode: %v", method, err), raw)
	}
	return nil
}

// CallRaw is Call without decoding.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id, p, msg, err := c.register(method, params)
	if err != nil {
		return nil, err
	}
	if err := c.write(msg); err != nil {
		c.forget(id)
		return nil, err
	}
	return c.await(ctx, id, p)
}

// CallWithNext sends a request in the same write as the next message the
// connection sends, right after it, and returns at once; answer waits for
// the result. The peer reads the two together: a harness that must tell
// a kernel two things at one instant (a call's answer and a cancel, so
// that no call is in flight when the cancel lands) cannot rely on
// timing. Only one such request waits at a time.
func (c *Conn) CallWithNext(method string, params any) (answer func(context.Context) (json.RawMessage, error), err error) {
	id, p, msg, err := c.register(method, params)
	if err != nil {
		return nil, err
	}
	b, err := encode(msg)
	if err != nil {
		c.forget(id)
		return nil, err
	}
	c.wmu.Lock()
	if c.rider != nil {
		c.wmu.Unlock()
		c.forget(id)
		return nil, errors.New("jsonrpc: a request already waits for the next write")
	}
	c.rider = append(b, '\n')
	c.wmu.Unlock()
	return func(ctx context.Context) (json.RawMessage, error) { return c.await(ctx, id, p) }, nil
}

// CallNewlineApart sends a request whose line ends in a write of its own,
// pause after the rest of it: PROTOCOL.md §2 lets a line arrive in any
// pieces, and a reader that takes a read starting with the newline for the
// start of the next line loses the request. No other message is written
// in between. Whether the peer reads the two writes apart is up to its
// scheduler, so a correct peer's answer never depends on it.
func (c *Conn) CallNewlineApart(ctx context.Context, method string, params any, pause time.Duration) (json.RawMessage, error) {
	id, p, msg, err := c.register(method, params)
	if err != nil {
		return nil, err
	}
	b, err := encode(msg)
	if err == nil {
		err = c.writeLine(b, pause)
	}
	if err != nil {
		c.forget(id)
		return nil, err
	}
	return c.await(ctx, id, p)
}

// CallLineOf sends a request whose line is exactly size bytes long,
// newline excluded: params(n) is the request's params grown by n bytes of
// encoding over params(0). A harness that sends the longest line PROTOCOL.md
// §2 allows sees whether the peer takes it.
func (c *Conn) CallLineOf(ctx context.Context, method string, params func(n int) any, size int) (json.RawMessage, error) {
	id, p, msg, err := c.register(method, params(0))
	if err != nil {
		return nil, err
	}
	b, err := encode(msg)
	if err == nil {
		msg.Params, err = json.Marshal(params(size - len(b)))
	}
	if err == nil {
		if b, err = encode(msg); err == nil && len(b) != size {
			err = fmt.Errorf("jsonrpc: a line of %d bytes was asked for, the params made one of %d", size, len(b))
		}
	}
	if err == nil {
		err = c.write(msg)
	}
	if err != nil {
		c.forget(id)
		return nil, err
	}
	return c.await(ctx, id, p)
}

func (c *Conn) register(method string, params any) (json.RawMessage, *pending, wireMsg, error) {
	pb, err := json.Marshal(params)
	if err != nil {
		return nil, nil, wireMsg{}, err
	}
	id := json.RawMessage(strconv.FormatInt(c.nextID.Add(1), 10))
	p := &pending{method: method, ch: make(chan response, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, nil, wireMsg{}, ErrClosed
	}
	c.pending[string(id)] = p
	if c.first == "" {
		c.first = method
	}
	return id, p, wireMsg{ID: id, Method: method, Params: pb}, nil
}

func (c *Conn) forget(id json.RawMessage) {
	c.mu.Lock()
	delete(c.pending, string(id))
	c.mu.Unlock()
}

func (c *Conn) await(ctx context.Context, id json.RawMessage, p *pending) (json.RawMessage, error) {
	method := p.method
	select {
	case r := <-p.ch:
		if r.err == nil && c.opt.Validate != nil {
			if err := c.opt.Validate(method, Result, r.result); err != nil {
				return nil, c.violation(fmt.Sprintf("%s result: %v", method, err), r.line)
			}
		}
		return r.result, r.err
	case <-ctx.Done():
		c.abandon(id, method)
		go c.Notify("$/cancelRequest", map[string]json.RawMessage{"id": id}) // never block on a peer that stopped reading
		return nil, ctx.Err()
	}
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	pb, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(wireMsg{Method: method, Params: pb})
}
