package jsonrpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentconform/conform/internal/jsonstrict"
)

func (c *Conn) readLine() ([]byte, error) {
	var buf []byte
	for {
		frag, err := c.r.ReadSlice('\n')
		n := len(buf) + len(frag)
		if err == nil {
			n-- // the newline ends the line and is not part of it (PROTOCOL.md §2)
		}
		if n > c.opt.MaxLine {
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
	go c.ahead.fill()
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
		select {
		case <-c.done:
			return // closed: what the peer still sends is nobody's business
		default:
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

// Waited is how long the read loop has spent waiting for the peer to write,
// with nothing of its output left to handle (prefetch), the wait in progress
// included. A caller with a deadline charges the peer only for this, so that
// its own slowness under a flood of messages is not taken for the peer's.
func (c *Conn) Waited() time.Duration {
	w := c.waited.Load()
	if at := c.readAt.Load(); at != 0 {
		w += max(0, c.opt.Now().UnixNano()-at)
	}
	return time.Duration(w)
}

// envelopeKeys are the member names of a JSON-RPC message; they are
// case-sensitive, and Go's decoder would match "RESULT" to result.
var envelopeKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// envelope is what dispatch learns of a line beyond its decoded members.
type envelope struct {
	hasResult, hasError bool
}

func (c *Conn) dispatch(line []byte) error {
	if !utf8.Valid(line) {
		return c.violation(fmt.Sprintf("line is not valid UTF-8 (at byte %d)", invalidUTF8At(line)), line)
	}
	canon, keys, err := jsonstrict.Envelope(line)
	if err != nil {
		var ke *jsonstrict.KeyError
		if errors.As(err, &ke) {
			return c.violation("repeated key: "+ke.Error(), line)
		}
		return c.violation("not a JSON-RPC message ("+err.Error()+")", line)
	}
	var env envelope
	for _, k := range keys {
		for _, name := range envelopeKeys {
			if k != name && strings.EqualFold(k, name) {
				return c.violation(fmt.Sprintf("member %q is not %q: JSON-RPC member names are case-sensitive", k, name), line)
			}
		}
		env.hasResult = env.hasResult || k == "result"
		env.hasError = env.hasError || k == "error"
	}
	var m wireMsg
	if err := json.Unmarshal(canon, &m); err != nil {
		return c.violation("not a JSON-RPC message ("+err.Error()+")", line)
	}
	if m.JSONRPC != "2.0" {
		return c.violation(`message without "jsonrpc":"2.0"`, line)
	}
	switch {
	case m.Method != "":
		return c.serve(m, line)
	case m.ID != nil:
		return c.deliver(m, env, line)
	default:
		return c.violation("message is neither a request nor a response", line)
	}
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}
