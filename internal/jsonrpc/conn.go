package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
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
}

// Conn is one end of a conversation.
type Conn struct {
	r       *bufio.Reader
	w       io.Writer
	closer  io.Closer
	handler Handler
	opt     Options

	wmu    sync.Mutex
	nextID atomic.Int64
	seq    int64 // read loop only

	mu       sync.Mutex
	idle     *sync.Cond // signalled when a served request's reply is written
	serving  int        // requests being served, reply not yet written
	pending  map[string]*pending
	incoming map[string]context.CancelFunc
	closed   bool
	err      error
	done     chan struct{}
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
	c := &Conn{
		r: bufio.NewReaderSize(r, 64<<10), w: w, closer: closer, handler: h, opt: opt,
		pending: map[string]*pending{}, incoming: map[string]context.CancelFunc{},
		done: make(chan struct{}),
	}
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
	for _, cancel := range c.incoming {
		cancel()
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

func (c *Conn) readLine() ([]byte, error) {
	var buf []byte
	for {
		frag, err := c.r.ReadSlice('\n')
		if len(buf)+len(frag) > c.opt.MaxLine {
			return nil, c.violation(fmt.Sprintf("line longer than %d bytes", c.opt.MaxLine), frag[:min(len(frag), 80)])
		}
		buf = append(buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(bytes.TrimSpace(buf)) > 0 {
				return buf, nil
			}
			return nil, err
		}
		return buf, nil
	}
}

func (c *Conn) readLoop() {
	for {
		line, err := c.readLine()
		if err != nil {
			var v *Violation
			if errors.As(err, &v) || !errors.Is(err, io.EOF) {
				c.shutdown(err)
			} else {
				c.shutdown(nil)
			}
			return
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := c.dispatch(line); err != nil {
			c.shutdown(err)
			return
		}
	}
}

func (c *Conn) dispatch(line []byte) error {
	var m wireMsg
	if err := json.Unmarshal(line, &m); err != nil {
		return c.violation("not a JSON-RPC message ("+err.Error()+")", line)
	}
	if m.JSONRPC != "2.0" {
		return c.violation(`message without "jsonrpc":"2.0"`, line)
	}
	switch {
	case m.Method != "":
		c.serve(m, line)
		return nil
	case m.ID != nil:
		return c.deliver(m, line)
	default:
		return c.violation("message is neither a request nor a response", line)
	}
}

func (c *Conn) serve(m wireMsg, line []byte) {
	if m.Method == "$/cancelRequest" {
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			c.mu.Lock()
			if cancel, ok := c.incoming[string(p.ID)]; ok {
				cancel()
			}
			c.mu.Unlock()
		}
		return
	}
	// Notifications are validated here, in order; requests in their own
	// goroutine below, so that validation (the costliest part of a message)
	// uses every core when the peer has many requests in flight.
	if m.ID == nil && c.opt.Validate != nil {
		if err := c.opt.Validate(m.Method, Params, m.Params); err != nil {
			c.violation(fmt.Sprintf("%s params: %v", m.Method, err), line)
			return
		}
	}
	c.seq++
	req := &Request{ID: m.ID, Method: m.Method, Params: m.Params, Seq: c.seq}
	if c.opt.Arrive != nil {
		c.opt.Arrive(req)
	}
	if m.ID == nil {
		// Notifications are handled in the read loop so that they keep
		// their order relative to everything else the peer sends.
		_, _ = c.handler(context.Background(), req)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cancel()
		return
	}
	c.incoming[string(m.ID)] = cancel
	c.serving++
	c.mu.Unlock()
	go func() {
		defer cancel()
		defer func() {
			c.mu.Lock()
			c.serving--
			c.idle.Broadcast()
			c.mu.Unlock()
		}()
		if c.opt.Validate != nil {
			if err := c.opt.Validate(m.Method, Params, m.Params); err != nil {
				c.violation(fmt.Sprintf("%s params: %v", m.Method, err), line)
				c.mu.Lock()
				delete(c.incoming, string(m.ID))
				c.mu.Unlock()
				c.reply(m.ID, nil, &Error{Code: -32602, Message: err.Error()})
				return
			}
		}
		res, err := c.handler(ctx, req)
		c.mu.Lock()
		delete(c.incoming, string(m.ID))
		c.mu.Unlock()
		var rerr *Error
		if err != nil && !errors.As(err, &rerr) {
			rerr = &Error{Code: -32603, Message: err.Error()}
		}
		if rerr != nil {
			res = nil
		}
		c.reply(m.ID, res, rerr)
	}()
}

func (c *Conn) deliver(m wireMsg, line []byte) error {
	c.mu.Lock()
	p, ok := c.pending[string(m.ID)]
	delete(c.pending, string(m.ID))
	c.mu.Unlock()
	if !ok {
		// An answer to a request we gave up on (cancelled, timed out) is
		// normal; anything else would be too, from the outside.
		return nil
	}
	if m.Error != nil {
		p.ch <- response{err: m.Error}
		return nil
	}
	if m.Result == nil {
		p.ch <- response{err: c.violation("response to "+p.method+" has neither result nor error", line)}
		return nil
	}
	// The caller validates the result in its own goroutine (see serve).
	p.ch <- response{result: m.Result, line: line}
	return nil
}

func (c *Conn) write(m wireMsg) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	_, err = c.w.Write(b)
	return err
}

func (c *Conn) reply(id json.RawMessage, res any, rerr *Error) {
	m := wireMsg{ID: id, Error: rerr}
	if rerr == nil {
		b, err := json.Marshal(res)
		if err != nil {
			m.Error = &Error{Code: -32603, Message: "marshal result: " + err.Error()}
		} else {
			m.Result = b
		}
	}
	_ = c.write(m)
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
	pb, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	id := json.RawMessage(strconv.FormatInt(c.nextID.Add(1), 10))
	p := &pending{method: method, ch: make(chan response, 1)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.pending[string(id)] = p
	c.mu.Unlock()
	if err := c.write(wireMsg{ID: id, Method: method, Params: pb}); err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case r := <-p.ch:
		if r.err == nil && c.opt.Validate != nil {
			if err := c.opt.Validate(method, Result, r.result); err != nil {
				return nil, c.violation(fmt.Sprintf("%s result: %v", method, err), r.line)
			}
		}
		return r.result, r.err
	case <-ctx.Done():
		c.forget(id)
		go c.Notify("$/cancelRequest", map[string]json.RawMessage{"id": id}) // never block on a peer that stopped reading
		return nil, ctx.Err()
	}
}

func (c *Conn) forget(id json.RawMessage) {
	c.mu.Lock()
	delete(c.pending, string(id))
	c.mu.Unlock()
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	pb, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(wireMsg{Method: method, Params: pb})
}
