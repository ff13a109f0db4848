package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// recentAnswers is how many answered calls keep their method name for
// messages about a second answer; the check itself needs no memory (our ids
// are 1, 2, 3, …).
const recentAnswers = 1024

// deliver hands a response to the call waiting for it. A response to a call
// that was never made or was already answered, or one carrying both result
// and error, is a violation that ends the connection.
func (c *Conn) deliver(m wireMsg, env envelope, line []byte) error {
	id := string(m.ID)
	c.mu.Lock()
	p, ok := c.pending[id]
	var method string
	late, again := false, false
	switch {
	case ok:
		delete(c.pending, id)
		method = p.method
		c.remember(id, method)
	default:
		if method, late = c.abandoned[id]; late {
			delete(c.abandoned, id)
			c.remember(id, method)
		} else if n, err := strconv.ParseInt(id, 10, 64); err == nil && n >= 1 && n <= c.nextID.Load() {
			again, method = true, c.answered[id]
		}
	}
	c.mu.Unlock()
	if ok {
		c.handshook = true // the read loop alone reads and writes it
	}
	if method == "" {
		method = "a request"
	}
	if env.hasResult && env.hasError {
		v := c.violation(fmt.Sprintf("response to %s (id %s) has both result and error", method, id), line)
		if ok {
			p.ch <- response{err: v}
		}
		return v
	}
	switch {
	case again:
		return c.violation(fmt.Sprintf("second response to %s (id %s)", method, id), line)
	case late:
		return nil // an answer to a request we gave up on (cancelled, timed out) is normal
	case !ok:
		return c.violation(fmt.Sprintf("response with id %s, which no request had", id), line)
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

// remember keeps the method of an answered call for messages; c.mu is held.
func (c *Conn) remember(id, method string) {
	c.answered[id] = method
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		delete(c.answered, strconv.FormatInt(n-recentAnswers, 10))
	}
}

// abandon forgets a pending call whose caller stopped waiting; its answer
// may still come, once.
func (c *Conn) abandon(id json.RawMessage, method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[string(id)]; ok {
		delete(c.pending, string(id))
		c.abandoned[string(id)] = method
	}
}
