package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// pendingCall starts a call of method and returns its error channel and the
// request as the peer saw it.
func pendingCall(t *testing.T, c *Conn, p *rawPeer, method string, result any) (<-chan error, wireMsg) {
	t.Helper()
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(context.Background(), method, nil, result) }()
	return callErr, p.next()
}

func TestSecondResponse(t *testing.T) {
	t.Run("after the answer", func(t *testing.T) {
		v := newViolations()
		c, p := newRaw(t, echo, Options{OnViolation: v.on})
		callErr, req := pendingCall(t, c, p, "m", nil)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID))
		if err := recv(t, callErr, "the call"); err != nil {
			t.Fatal(err)
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID))
		expectBroken(t, c, v, nil, fmt.Sprintf("second response to m (id %s)", req.ID))
	})
	t.Run("after a late answer", func(t *testing.T) {
		v := newViolations()
		c, p := newRaw(t, echo, Options{OnViolation: v.on})
		ctx, cancel := context.WithCancel(context.Background())
		callErr := make(chan error, 1)
		go func() { callErr <- c.Call(ctx, "slow", nil, nil) }()
		req := p.next()
		cancel()
		recv(t, callErr, "the cancelled call")
		p.next() // $/cancelRequest
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32004,"message":"cancelled"}}`, req.ID))
		p.send(`{"jsonrpc":"2.0","id":"x1","method":"ping"}`)
		if r := p.next(); string(r.ID) != `"x1"` {
			t.Fatalf("ping answer: %+v", r)
		}
		v.none(t)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID))
		expectBroken(t, c, v, nil, fmt.Sprintf("second response to slow (id %s)", req.ID))
	})
}

func TestResponseToNoRequest(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":987654,"result":1}`, "response with id 987654, which no request had"},
		{`{"jsonrpc":"2.0","id":"k-1","result":1}`, `response with id "k-1", which no request had`},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, "response with id null"},
		// Ids are echoed exactly: 1.0 is not the id 1 that was sent.
		{`{"jsonrpc":"2.0","id":1.0,"result":{}}`, "response with id 1.0, which no request had"},
	} {
		t.Run(tt.line, func(t *testing.T) {
			v := newViolations()
			c, p := newRaw(t, echo, Options{OnViolation: v.on})
			callErr, _ := pendingCall(t, c, p, "m", nil)
			p.send(tt.line)
			expectBroken(t, c, v, callErr, tt.want)
		})
	}
}

func TestResponseWithResultAndError(t *testing.T) {
	for _, body := range []string{
		`"result":{},"error":{"code":1,"message":"x"}`,
		`"result":null,"error":{"code":1,"message":"x"}`,
		`"error":null,"result":{}`,
	} {
		t.Run(body, func(t *testing.T) {
			v := newViolations()
			c, p := newRaw(t, echo, Options{OnViolation: v.on})
			callErr, req := pendingCall(t, c, p, "m", nil)
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,%s}`, req.ID, body))
			want := fmt.Sprintf("response to m (id %s) has both result and error", req.ID)
			var x *Violation
			if err := recv(t, callErr, "the call"); !errors.As(err, &x) || !strings.Contains(x.What, want) {
				t.Errorf("call returned %v, want a violation %q", err, want)
			}
			expectBroken(t, c, v, nil, want)
		})
	}
}

func TestReusedRequestID(t *testing.T) {
	release := make(chan struct{})
	h := func(ctx context.Context, r *Request) (any, error) {
		if r.Method == "slow" {
			<-release
		}
		return echo(ctx, r)
	}
	v := newViolations()
	c, p := newRaw(t, h, Options{OnViolation: v.on})
	defer close(release)
	// An id may be used again once its request is answered...
	p.send(`{"jsonrpc":"2.0","id":"k1","method":"ping"}`)
	p.next()
	p.send(`{"jsonrpc":"2.0","id":"k1","method":"ping"}`)
	p.next()
	v.none(t)
	// ...but not while it is pending.
	p.send(`{"jsonrpc":"2.0","id":"k2","method":"slow"}`)
	p.send(`{"jsonrpc":"2.0","id":"k2","method":"ping"}`)
	expectBroken(t, c, v, nil, `request id "k2" reused by ping while the slow request with that id is still unanswered`)
}

func TestMemberNamesAreCaseSensitive(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"JSONRPC":"2.0","method":"tick"}`, `member "JSONRPC" is not "jsonrpc"`},
		{`{"jsonrpc":"2.0","Method":"tick"}`, `member "Method" is not "method"`},
		{`{"jsonrpc":"2.0","id":1,"RESULT":{}}`, `member "RESULT" is not "result"`},
		{`{"jsonrpc":"2.0","id":1,"result":{},"Result":{}}`, `repeated key: at /: keys "result" and "Result" differ only in case`},
		{`{"jsonrpc":"2.0","method":"tick","params":{"a":1,"A":2}}`, `repeated key: at /params: keys "a" and "A" differ only in case`},
	} {
		t.Run(tt.line, func(t *testing.T) {
			v := newViolations()
			c, p := newRaw(t, echo, Options{OnViolation: v.on})
			callErr, _ := pendingCall(t, c, p, "m", nil)
			p.send(tt.line)
			expectBroken(t, c, v, callErr, tt.want)
		})
	}
}

func TestRepeatedKeys(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":1,"result":2}`, `at /: key "result" appears twice`},
		{`{"jsonrpc":"2.0","jsonrpc":"2.0","method":"tick"}`, `at /: key "jsonrpc" appears twice`},
		{`{"jsonrpc":"2.0","method":"tick","params":{"usage":{"input_tokens":1,"input_tokens":900}}}`, `at /params/usage: key "input_tokens" appears twice`},
	} {
		t.Run(tt.line, func(t *testing.T) {
			v := newViolations()
			c, p := newRaw(t, echo, Options{OnViolation: v.on})
			callErr, _ := pendingCall(t, c, p, "m", nil)
			p.send(tt.line)
			expectBroken(t, c, v, callErr, "repeated key: "+tt.want)
		})
	}
}

func TestInvalidUTF8(t *testing.T) {
	v := newViolations()
	c, p := newRaw(t, echo, Options{OnViolation: v.on})
	callErr, _ := pendingCall(t, c, p, "m", nil)
	p.send("{\"jsonrpc\":\"2.0\",\"method\":\"tick\",\"params\":{\"text\":\"caf\xe9\"}}")
	expectBroken(t, c, v, callErr, "line is not valid UTF-8 (at byte 54)")
	if x := c.Err().(*Violation); !strings.Contains(x.Error(), `caf\xe9`) {
		t.Errorf("violation does not show the bad byte escaped: %v", x)
	}
}

func TestHandshake(t *testing.T) {
	t.Run("before the answer", func(t *testing.T) {
		v := newViolations()
		c, p := newRaw(t, echo, Options{OnViolation: v.on, Handshake: true})
		callErr, _ := pendingCall(t, c, p, "initialize", nil)
		p.send(`{"jsonrpc":"2.0","method":"event","params":{}}`)
		expectBroken(t, c, v, callErr, "event sent before initialize was answered")
	})
	t.Run("after the answer", func(t *testing.T) {
		v := newViolations()
		c, p := newRaw(t, echo, Options{OnViolation: v.on, Handshake: true})
		callErr, req := pendingCall(t, c, p, "initialize", nil)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID))
		if err := recv(t, callErr, "initialize"); err != nil {
			t.Fatal(err)
		}
		p.send(`{"jsonrpc":"2.0","method":"event","params":{}}`)
		p.send(`{"jsonrpc":"2.0","id":"x","method":"ping"}`)
		if r := p.next(); string(r.ID) != `"x"` {
			t.Fatalf("ping answer %+v", r)
		}
		v.none(t)
	})
}

// TestIntegralNumbers: params and results reach handlers and callers with
// integral numbers as integers; the peer's own ids are echoed as written.
func TestIntegralNumbers(t *testing.T) {
	params := make(chan json.RawMessage, 1)
	h := func(_ context.Context, r *Request) (any, error) {
		params <- r.Params
		return "ok", nil
	}
	c, p := newRaw(t, h, Options{})
	p.send(`{"jsonrpc":"2.0","id":7.0,"method":"count","params":{"n":1200.0,"f":0.5,"big":1e400}}`)
	if got := string(recv(t, params, "the params")); got != `{"n":1200,"f":0.5,"big":1e400}` {
		t.Errorf("handler saw %s", got)
	}
	if r := p.next(); string(r.ID) != "7.0" {
		t.Errorf("answer to id 7.0 has id %s", r.ID)
	}
	var res struct{ N int }
	callErr, req := pendingCall(t, c, p, "m", &res)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"n":3.0e1}}`, req.ID))
	if err := recv(t, callErr, "the call"); err != nil || res.N != 30 {
		t.Errorf("result 3.0e1 decoded as %d, %v", res.N, err)
	}
}

func TestNotificationHandlerErrorIsAViolation(t *testing.T) {
	h := func(_ context.Context, r *Request) (any, error) {
		if r.Method == "cost" {
			return nil, errors.New("at /usage: no such field")
		}
		return echo(context.Background(), r)
	}
	v := newViolations()
	c, p := newRaw(t, h, Options{OnViolation: v.on})
	p.send(`{"jsonrpc":"2.0","method":"cost","params":{}}`)
	if x := v.wait(t); x.What != "cost notification: at /usage: no such field" {
		t.Errorf("violation %q", x.What)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	p.next()
	if c.Err() != nil {
		t.Errorf("the connection broke: %v", c.Err())
	}
}

func TestCancelRequestWithoutID(t *testing.T) {
	v := newViolations()
	_, p := newRaw(t, echo, Options{OnViolation: v.on})
	p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{}}`)
	if x := v.wait(t); !strings.Contains(x.What, "$/cancelRequest params do not name an id") {
		t.Errorf("violation %q", x.What)
	}
}

// TestWaitedCountsReads: with a clock that advances one millisecond per
// reading, each read of the peer's output counts one millisecond (two
// readings), and a read in progress counts up to now.
func TestWaitedCountsReads(t *testing.T) {
	var ms atomic.Int64
	now := func() time.Time { return time.Unix(0, ms.Add(1)*int64(time.Millisecond)) }
	r, w := io.Pipe()
	c := New(r, io.Discard, nil, echo, Options{Now: now})
	if got := c.Waited(); got != 0 {
		t.Fatalf("Waited = %v before reading", got)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.readLoop()
	}()
	// The loop is now blocked in its first read (or about to be): the
	// read in progress counts.
	for c.readAt.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if got := c.Waited(); got <= 0 {
		t.Errorf("Waited = %v during a blocked read, want > 0", got)
	}
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","method":"tick"}`+"\n")
	w.Close()
	<-done
	if c.readAt.Load() != 0 {
		t.Error("a read is still marked in progress after EOF")
	}
	if got, n := c.Waited(), ms.Load(); got <= 0 || got >= time.Duration(n)*time.Millisecond {
		t.Errorf("Waited = %v, want between 0 and the %d ms the clock moved", got, n)
	}
}

// TestPrefetchEndsWithTheConnection: a peer that keeps writing while the
// read loop is stuck fills the read-ahead; closing the connection ends the
// goroutine that fills it, whatever it was blocked on.
func TestPrefetchEndsWithTheConnection(t *testing.T) {
	before := runtime.NumGoroutine()
	stuck := make(chan struct{})
	h := func(context.Context, *Request) (any, error) { <-stuck; return nil, nil }
	r, w := io.Pipe()
	c := New(r, io.Discard, nil, h, Options{})
	c.Start()
	go func() {
		line := []byte(`{"jsonrpc":"2.0","method":"tick","params":{"pad":"` + strings.Repeat("x", 1000) + `"}}` + "\n")
		for {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}()
	// Wait until the read-ahead is full: the writer is then blocked.
	deadline := time.Now().Add(guard)
	for len(c.ahead.chunks) < prefetchChunks && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if len(c.ahead.chunks) < prefetchChunks {
		t.Fatalf("read-ahead holds %d chunks, want %d", len(c.ahead.chunks), prefetchChunks)
	}
	c.Close()
	close(stuck)
	r.Close()
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after close, %d before", n, before)
	}
}
