package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// serve handles a request or notification from the peer. A non-nil error
// is a violation that ends the connection.
func (c *Conn) serve(m wireMsg, line []byte) error {
	if c.opt.Handshake && !c.handshook {
		c.mu.Lock()
		first := c.first
		c.mu.Unlock()
		if first == "" {
			first = "the first request"
		}
		return c.violation(fmt.Sprintf("%s sent before %s was answered", m.Method, first), line)
	}
	if m.Method == "$/cancelRequest" {
		c.cancelIncoming(m, line)
		return nil
	}
	// Notifications are validated here, in order; requests in their own
	// goroutine below, so that validation (the costliest part of a message)
	// uses every core when the peer has many requests in flight.
	if m.ID == nil && c.opt.Validate != nil {
		if err := c.opt.Validate(m.Method, Params, m.Params); err != nil {
			c.violation(fmt.Sprintf("%s params: %v", m.Method, err), line)
			return nil
		}
	}
	if m.ID != nil {
		c.mu.Lock()
		prev, reused := c.incoming[string(m.ID)]
		c.mu.Unlock()
		if reused {
			return c.violation(fmt.Sprintf("request id %s reused by %s while the %s request with that id is still unanswered", m.ID, m.Method, prev.method), line)
		}
	}
	c.seq++
	req := &Request{ID: m.ID, Method: m.Method, Params: m.Params, Seq: c.seq}
	if c.opt.Arrive != nil {
		c.opt.Arrive(req)
	}
	if m.ID == nil {
		// Notifications are handled in the read loop so that they keep
		// their order relative to everything else the peer sends. A
		// handler that cannot take one says so: never a silent drop.
		if _, err := c.handler(context.Background(), req); err != nil {
			c.violation(fmt.Sprintf("%s notification: %v", m.Method, err), line)
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cancel()
		return nil
	}
	c.incoming[string(m.ID)] = incoming{method: m.Method, cancel: cancel}
	c.serving++
	c.mu.Unlock()
	go c.answer(ctx, cancel, m, req, line)
	return nil
}

// answer runs the handler of one request and writes its reply.
func (c *Conn) answer(ctx context.Context, cancel context.CancelFunc, m wireMsg, req *Request, line []byte) {
	defer cancel()
	defer func() {
		c.mu.Lock()
		c.serving--
		c.idle.Broadcast()
		c.mu.Unlock()
	}()
	// The id is forgotten before the reply is written, so the peer may
	// reuse it as soon as it has the answer.
	done := func() {
		c.mu.Lock()
		delete(c.incoming, string(m.ID))
		c.mu.Unlock()
	}
	if c.opt.Validate != nil {
		if err := c.opt.Validate(m.Method, Params, m.Params); err != nil {
			c.violation(fmt.Sprintf("%s params: %v", m.Method, err), line)
			done()
			c.reply(m.ID, nil, &Error{Code: -32602, Message: err.Error()})
			return
		}
	}
	res, err := c.handler(ctx, req)
	done()
	var rerr *Error
	if err != nil && !errors.As(err, &rerr) {
		rerr = &Error{Code: -32603, Message: err.Error()}
	}
	if rerr != nil {
		res = nil
	}
	c.reply(m.ID, res, rerr)
}

// cancelIncoming handles $/cancelRequest: the peer gave up on one of its
// requests. An unknown or already answered id is normal (the answer and the
// notice crossed).
func (c *Conn) cancelIncoming(m wireMsg, line []byte) {
	if c.opt.Validate != nil {
		if err := c.opt.Validate(m.Method, Params, m.Params); err != nil {
			c.violation(fmt.Sprintf("%s params: %v", m.Method, err), line)
			return
		}
	}
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.ID == nil {
		c.violation(fmt.Sprintf("%s params do not name an id (%s)", m.Method, m.Params), line)
		return
	}
	c.mu.Lock()
	if in, ok := c.incoming[string(p.ID)]; ok {
		in.cancel()
	}
	c.mu.Unlock()
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
	_ = c.write(m) // fails only once the connection is closed, which its owner already knows
}
