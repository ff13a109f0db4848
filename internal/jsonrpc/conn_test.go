package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// guard bounds every wait: it is a failure detector, never a way to order
// events (ordering always goes through channels). A minute, not seconds:
// under -race on a busy 2-core machine, reading 8 MiB through a pipe took
// longer than 10 s (issue 25), and a generous guard costs nothing when
// the test passes.
const guard = time.Minute

// pipeEnd closes both pipe halves a Conn uses, so closing a Conn unblocks
// its peer's writes (io.ErrClosedPipe) and ends its peer's reads (EOF).
type pipeEnd struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p pipeEnd) Close() error {
	p.w.Close()
	p.r.Close()
	return nil
}

// newPair connects two Conns back to back.
func newPair(t *testing.T, ha, hb Handler, oa, ob Options) (a, b *Conn) {
	t.Helper()
	ar, bw := io.Pipe() // b writes, a reads
	br, aw := io.Pipe() // a writes, b reads
	a = New(ar, aw, pipeEnd{ar, aw}, ha, oa)
	b = New(br, bw, pipeEnd{br, bw}, hb, ob)
	a.Start()
	b.Start()
	t.Cleanup(func() {
		a.Close()
		b.Close()
		waitClosed(t, a, "a")
		waitClosed(t, b, "b")
	})
	return a, b
}

func waitClosed(t *testing.T, c *Conn, name string) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(guard):
		t.Errorf("connection %s did not end", name)
	}
}

// rawPeer is the far end of a Conn driven by hand: the test writes lines and
// reads what the Conn wrote.
type rawPeer struct {
	t     *testing.T
	w     *io.PipeWriter
	lines chan []byte
}

func newRaw(t *testing.T, h Handler, opt Options) (*Conn, *rawPeer) {
	t.Helper()
	cr, tw := io.Pipe() // test → conn
	tr, cw := io.Pipe() // conn → test
	c := New(cr, cw, pipeEnd{cr, cw}, h, opt)
	p := &rawPeer{t: t, w: tw, lines: make(chan []byte, 64)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(tr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	c.Start()
	t.Cleanup(func() {
		c.Close()
		tw.Close()
		tr.Close()
		waitClosed(t, c, "conn")
	})
	return c, p
}

// send writes one line to the Conn.
func (p *rawPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatalf("writing %q: %v", line, err)
	}
}

// next returns the next message the Conn wrote.
func (p *rawPeer) next() wireMsg {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the connection stopped writing")
		}
		var m wireMsg
		if err := json.Unmarshal(line, &m); err != nil {
			p.t.Fatalf("connection wrote a bad line %q: %v", line, err)
		}
		if m.JSONRPC != "2.0" {
			p.t.Fatalf("connection wrote %q without jsonrpc 2.0", line)
		}
		return m
	case <-time.After(guard):
		p.t.Fatal("timed out waiting for the connection to write")
	}
	return wireMsg{}
}

// violations collects OnViolation calls.
type violations struct{ ch chan *Violation }

func newViolations() *violations { return &violations{ch: make(chan *Violation, 64)} }

func (v *violations) on(x *Violation) { v.ch <- x }

func (v *violations) wait(t *testing.T) *Violation {
	t.Helper()
	select {
	case x := <-v.ch:
		return x
	case <-time.After(guard):
		t.Fatal("no violation reported")
	}
	return nil
}

func (v *violations) none(t *testing.T) {
	t.Helper()
	select {
	case x := <-v.ch:
		t.Errorf("unexpected violation: %v", x)
	default:
	}
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case x := <-ch:
		return x
	case <-time.After(guard):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

func echo(_ context.Context, r *Request) (any, error) {
	switch r.Method {
	case "echo":
		return r.Params, nil
	case "ping":
		return "pong", nil
	}
	if r.IsNotification() {
		return nil, nil
	}
	return nil, &Error{Code: -32601, Message: "no method " + r.Method}
}

func TestCallBothDirections(t *testing.T) {
	add := func(_ context.Context, r *Request) (any, error) {
		var p [2]int
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return nil, err
		}
		return p[0] + p[1], nil
	}
	a, b := newPair(t, add, echo, Options{}, Options{})
	ctx := context.Background()

	var got map[string]string
	if err := a.Call(ctx, "echo", map[string]string{"k": "v"}, &got); err != nil {
		t.Fatal(err)
	}
	if got["k"] != "v" {
		t.Errorf("echo: got %v", got)
	}
	var sum int
	if err := b.Call(ctx, "add", [2]int{2, 40}, &sum); err != nil {
		t.Fatal(err)
	}
	if sum != 42 {
		t.Errorf("add: got %d", sum)
	}
	// A nil result pointer discards the answer.
	if err := a.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := a.CallRaw(ctx, "ping", nil)
	if err != nil || string(raw) != `"pong"` {
		t.Errorf("CallRaw: got %s, %v", raw, err)
	}
	var e *Error
	if err := a.Call(ctx, "nope", nil, nil); !errors.As(err, &e) || e.Code != -32601 {
		t.Errorf("unknown method: got %v", err)
	}
	if a.Err() != nil || b.Err() != nil {
		t.Errorf("errors after a clean exchange: %v, %v", a.Err(), b.Err())
	}
}

func TestConcurrentCalls(t *testing.T) {
	release := make(chan struct{})
	blocked := make(chan struct{})
	h := func(ctx context.Context, r *Request) (any, error) {
		if r.Method == "block" {
			close(blocked)
			<-release
			return "released", nil
		}
		return echo(ctx, r)
	}
	a, _ := newPair(t, echo, h, Options{}, Options{})
	ctx := context.Background()

	// A request whose handler blocks must not hold up the others.
	blockErr := make(chan error, 1)
	var blockRes string
	go func() { blockErr <- a.Call(ctx, "block", nil, &blockRes) }()
	recv(t, blocked, "the blocking handler to start")

	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got int
			if err := a.Call(ctx, "echo", i, &got); err != nil {
				errs <- err
				return
			}
			if got != i {
				errs <- fmt.Errorf("call %d got answer %d", i, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	close(release)
	if err := recv(t, blockErr, "the blocked call"); err != nil || blockRes != "released" {
		t.Errorf("blocked call: %q, %v", blockRes, err)
	}
}

func TestNotificationsInOrder(t *testing.T) {
	const n = 200
	type seen struct {
		n   int
		seq int64
	}
	var (
		mu      sync.Mutex
		arrived []seen
		handled []seen
	)
	arrive := func(r *Request) {
		var x int
		_ = json.Unmarshal(r.Params, &x)
		r.Note = r.Seq
		mu.Lock()
		arrived = append(arrived, seen{x, r.Seq})
		mu.Unlock()
	}
	h := func(ctx context.Context, r *Request) (any, error) {
		if note, _ := r.Note.(int64); note != r.Seq {
			t.Errorf("%s: Note %v, Seq %d: Arrive's note did not reach the handler", r.Method, r.Note, r.Seq)
		}
		if r.Method == "sync" {
			return "ok", nil
		}
		var x int
		_ = json.Unmarshal(r.Params, &x)
		mu.Lock()
		handled = append(handled, seen{x, r.Seq})
		mu.Unlock()
		return nil, nil
	}
	a, _ := newPair(t, echo, h, Options{}, Options{Arrive: arrive})
	for i := range n {
		if err := a.Notify("tick", i); err != nil {
			t.Fatal(err)
		}
	}
	// Notifications run in the read loop, so once a later request has been
	// answered every earlier notification has been handled.
	if err := a.Call(context.Background(), "sync", nil, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(handled) != n {
		t.Fatalf("handled %d notifications before the next request, want %d", len(handled), n)
	}
	if len(arrived) != n+1 {
		t.Fatalf("Arrive saw %d messages, want %d", len(arrived), n+1)
	}
	for i := range n {
		if arrived[i].n != i || handled[i].n != i {
			t.Fatalf("message %d: arrived as %d, handled as %d", i, arrived[i].n, handled[i].n)
		}
		if i > 0 && arrived[i].seq <= arrived[i-1].seq {
			t.Fatalf("Seq not increasing: %d after %d", arrived[i].seq, arrived[i-1].seq)
		}
		if handled[i].seq != arrived[i].seq {
			t.Fatalf("message %d: Seq %d in Arrive, %d in the handler", i, arrived[i].seq, handled[i].seq)
		}
	}
	if arrived[n].seq <= arrived[n-1].seq {
		t.Errorf("the request after the notifications has Seq %d, not above %d", arrived[n].seq, arrived[n-1].seq)
	}
}

func TestCancelTellsThePeer(t *testing.T) {
	started := make(chan struct{})
	peerCtxErr := make(chan error, 1)
	var arrivals []string
	var mu sync.Mutex
	h := func(ctx context.Context, r *Request) (any, error) {
		if r.Method == "block" {
			close(started)
			<-ctx.Done()
			peerCtxErr <- ctx.Err()
			return nil, ctx.Err()
		}
		if r.Method == "hold" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return echo(ctx, r)
	}
	va, vb := newViolations(), newViolations()
	a, b := newPair(t, echo, h, Options{OnViolation: va.on}, Options{OnViolation: vb.on, Arrive: func(r *Request) {
		mu.Lock()
		arrivals = append(arrivals, r.Method)
		mu.Unlock()
	}})

	ctx, cancel := context.WithCancel(context.Background())
	callErr := make(chan error, 1)
	go func() { callErr <- a.Call(ctx, "block", nil, nil) }()
	recv(t, started, "the peer's handler to start")
	cancel()
	if err := recv(t, callErr, "the cancelled call"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v, want context.Canceled", err)
	}
	if err := recv(t, peerCtxErr, "the peer's handler context to end"); !errors.Is(err, context.Canceled) {
		t.Errorf("peer's handler ctx: %v", err)
	}

	// A deadline works the same way (the handler answers only once its
	// ctx is cancelled, so the deadline always comes first).
	dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer dcancel()
	if err := a.Call(dctx, "hold", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call past its deadline: %v", err)
	}

	// Both ends are still healthy; the peer's late error answer was ignored.
	if err := a.Call(context.Background(), "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	if a.Err() != nil || b.Err() != nil {
		t.Errorf("connection errors after a cancel: %v, %v", a.Err(), b.Err())
	}
	va.none(t)
	vb.none(t)
	mu.Lock()
	defer mu.Unlock()
	for _, m := range arrivals {
		if m == "$/cancelRequest" {
			t.Error("$/cancelRequest reached Arrive; it is handled by the connection")
		}
	}
}

func TestCancelSendsCancelRequestAndIgnoresLateAnswer(t *testing.T) {
	v := newViolations()
	c, p := newRaw(t, echo, Options{OnViolation: v.on})

	ctx, cancel := context.WithCancel(context.Background())
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(ctx, "slow", map[string]int{"n": 1}, nil) }()
	req := p.next()
	if req.Method != "slow" || req.ID == nil {
		t.Fatalf("first message: %+v", req)
	}
	cancel()
	if err := recv(t, callErr, "the cancelled call"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	cr := p.next()
	if cr.Method != "$/cancelRequest" || cr.ID != nil {
		t.Fatalf("after cancelling: %+v, want a $/cancelRequest notification", cr)
	}
	var cp struct{ ID json.RawMessage }
	if err := json.Unmarshal(cr.Params, &cp); err != nil || string(cp.ID) != string(req.ID) {
		t.Fatalf("$/cancelRequest params %s do not name id %s", cr.Params, req.ID)
	}

	// The late answer is dropped without complaint (a second one would be
	// a violation: TestSecondResponse).
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"late":true}}`, req.ID))
	// The read loop is sequential: once this request is answered, the lines
	// before it have been processed.
	p.send(`{"jsonrpc":"2.0","id":"x1","method":"ping"}`)
	if r := p.next(); string(r.ID) != `"x1"` || string(r.Result) != `"pong"` {
		t.Fatalf("ping answer: %+v", r)
	}
	v.none(t)
	if c.Err() != nil {
		t.Errorf("Err after a late answer: %v", c.Err())
	}

	// A later call still pairs with its own answer.
	var got string
	go func() { callErr <- c.Call(context.Background(), "again", nil, &got) }()
	req2 := p.next()
	if string(req2.ID) == string(req.ID) {
		t.Fatalf("id %s reused", req.ID)
	}
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"fresh"}`, req2.ID))
	if err := recv(t, callErr, "the second call"); err != nil || got != "fresh" {
		t.Errorf("second call: %q, %v", got, err)
	}
}

// A peer that stopped reading must not keep a cancelled call from
// returning: the $/cancelRequest notice may block, the caller must not.
func TestCancelDoesNotWaitForAStalledPeer(t *testing.T) {
	cr, tw := io.Pipe() // test → conn (never written)
	tr, cw := io.Pipe() // conn → test: one line is read, then nothing
	c := New(cr, cw, pipeEnd{cr, cw}, echo, Options{})
	c.Start()
	t.Cleanup(func() {
		c.Close()
		tw.Close()
		tr.Close()
		waitClosed(t, c, "conn")
	})
	first := make(chan []byte, 1)
	go func() {
		line, _ := bufio.NewReader(tr).ReadBytes('\n')
		first <- line
	}()
	ctx, cancel := context.WithCancel(context.Background())
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(ctx, "slow", nil, nil) }()
	if line := recv(t, first, "the request"); !strings.Contains(string(line), `"slow"`) {
		t.Fatalf("first line %q", line)
	}
	cancel()
	if err := recv(t, callErr, "the cancelled call to return while the peer is not reading"); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// expectBroken checks that the connection ended because of a violation
// whose text contains want, and that a pending call failed with ErrClosed.
func expectBroken(t *testing.T, c *Conn, v *violations, callErr <-chan error, want string) {
	t.Helper()
	x := v.wait(t)
	if !strings.Contains(x.What, want) {
		t.Errorf("violation %q does not mention %q", x.What, want)
	}
	if callErr != nil {
		err := recv(t, callErr, "the pending call to fail")
		if !errors.Is(err, ErrClosed) {
			t.Errorf("pending call returned %v, want ErrClosed", err)
		}
		if err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("pending call error %q does not say why (%q)", err, want)
		}
	}
	recv(t, c.Done(), "the connection to end")
	var cv *Violation
	if err := c.Err(); err == nil || !errors.As(err, &cv) || !strings.Contains(cv.What, want) {
		t.Errorf("Err() = %v, want a *Violation mentioning %q", err, want)
	}
	if err := c.Call(context.Background(), "ping", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after the violation: %v, want ErrClosed", err)
	}
	if err := c.Notify("tick", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("notify after the violation: %v, want ErrClosed", err)
	}
}

func TestGarbageLine(t *testing.T) {
	v := newViolations()
	c, p := newRaw(t, echo, Options{OnViolation: v.on})
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(context.Background(), "wait", nil, nil) }()
	p.next() // the call is pending once its request is on the wire
	p.send("this is { not json")
	expectBroken(t, c, v, callErr, "not a JSON-RPC message")
}

func TestTrailingDataAfterMessage(t *testing.T) {
	v := newViolations()
	c, p := newRaw(t, echo, Options{OnViolation: v.on})
	p.send(`{"jsonrpc":"2.0","method":"tick"} trailing garbage`)
	expectBroken(t, c, v, nil, "not a JSON-RPC message")
}

func TestMissingJSONRPCVersion(t *testing.T) {
	for _, line := range []string{
		`{"id":1,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	} {
		t.Run(line, func(t *testing.T) {
			v := newViolations()
			c, p := newRaw(t, echo, Options{OnViolation: v.on})
			p.send(line)
			expectBroken(t, c, v, nil, `without "jsonrpc":"2.0"`)
			if x := c.Err().(*Violation); !strings.Contains(string(x.Line), `"ping"`) {
				t.Errorf("violation does not quote the line: %q", x.Line)
			}
		})
	}
}

func TestNeitherRequestNorResponse(t *testing.T) {
	v := newViolations()
	c, p := newRaw(t, echo, Options{OnViolation: v.on})
	p.send(`{"jsonrpc":"2.0","params":{}}`)
	expectBroken(t, c, v, nil, "neither a request nor a response")
}

func TestResponseWithoutResultOrError(t *testing.T) {
	v := newViolations()
	c, p := newRaw(t, echo, Options{OnViolation: v.on})
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(context.Background(), "m", nil, nil) }()
	req := p.next()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s}`, req.ID))
	err := recv(t, callErr, "the call")
	var x *Violation
	if !errors.As(err, &x) || !strings.Contains(x.What, "response to m has neither result nor error") {
		t.Errorf("call returned %v", err)
	}
	v.wait(t)
}

func TestLineTooLong(t *testing.T) {
	t.Run("option", func(t *testing.T) {
		v := newViolations()
		c, p := newRaw(t, echo, Options{MaxLine: 1000, OnViolation: v.on})
		// A line of exactly MaxLine bytes, newline excluded, is fine
		// (PROTOCOL.md §2); one byte more is not.
		msg := `{"jsonrpc":"2.0","id":"fits","method":"ping"}`
		p.send(msg + strings.Repeat(" ", 1000-len(msg)))
		if r := p.next(); string(r.ID) != `"fits"` {
			t.Fatalf("answer to a line at the limit: %+v", r)
		}
		callErr := make(chan error, 1)
		go func() { callErr <- c.Call(context.Background(), "wait", nil, nil) }()
		p.next()
		// The limit is checked whenever the reader's 64 KiB buffer fills
		// or a newline arrives, so write well past both.
		go func() { _, _ = io.WriteString(p.w, strings.Repeat("x", 100_000)) }()
		expectBroken(t, c, v, callErr, "line longer than 1000 bytes")
	})
	t.Run("one over", func(t *testing.T) {
		v := newViolations()
		c, p := newRaw(t, echo, Options{MaxLine: 1000, OnViolation: v.on})
		msg := `{"jsonrpc":"2.0","id":"over","method":"ping"}`
		go func() { _, _ = io.WriteString(p.w, msg+strings.Repeat(" ", 1001-len(msg))+"\n") }()
		expectBroken(t, c, v, nil, "line longer than 1000 bytes")
	})
	t.Run("default", func(t *testing.T) {
		v := newViolations()
		c, p := newRaw(t, echo, Options{OnViolation: v.on})
		go func() {
			// One line, no newline, past the 8 MiB default (by more than
			// the reader's 64 KiB buffer: the limit is checked when the
			// buffer fills). The write fails once the connection stops
			// reading and closes.
			_, _ = io.WriteString(p.w, `{"jsonrpc":"2.0","method":"tick","params":"`+strings.Repeat("x", DefaultMaxLine+128<<10))
		}()
		expectBroken(t, c, v, nil, fmt.Sprintf("line longer than %d bytes", DefaultMaxLine))
		if x := c.Err().(*Violation); len(x.Line) > 210 {
			t.Errorf("violation keeps %d bytes of the line; it should be truncated", len(x.Line))
		}
	})
}

func TestValidateRejectsParams(t *testing.T) {
	called := make(chan string, 8)
	h := func(ctx context.Context, r *Request) (any, error) {
		called <- r.Method
		return echo(ctx, r)
	}
	validate := func(method string, part Part, raw json.RawMessage) error {
		if part == Params && strings.HasPrefix(method, "bad") {
			return errors.New("at /x: got string, want integer")
		}
		return nil
	}
	vb := newViolations()
	a, b := newPair(t, echo, h, Options{}, Options{Validate: validate, OnViolation: vb.on})

	var e *Error
	err := a.Call(context.Background(), "bad", map[string]string{"x": "s"}, nil)
	if !errors.As(err, &e) || e.Code != -32602 || !strings.Contains(e.Message, "at /x") {
		t.Fatalf("call with bad params returned %v, want a -32602 error naming /x", err)
	}
	x := vb.wait(t)
	if !strings.Contains(x.What, "bad params") || !strings.Contains(x.What, "at /x") {
		t.Errorf("violation %q does not name the method and the location", x.What)
	}
	// A notification with bad params is reported and dropped, not answered.
	if err := a.Notify("bad-note", map[string]string{"x": "s"}); err != nil {
		t.Fatal(err)
	}
	if x := vb.wait(t); !strings.Contains(x.What, "bad-note params") {
		t.Errorf("violation %q", x.What)
	}
	// The connection goes on.
	if err := a.Call(context.Background(), "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, called, "a handler"); m != "ping" {
		t.Errorf("handler ran for %q, which failed validation", m)
	}
	if b.Err() != nil {
		t.Errorf("Err after a rejected request: %v", b.Err())
	}
}

func TestValidateRejectsResult(t *testing.T) {
	validate := func(method string, part Part, raw json.RawMessage) error {
		if part == Result && method == "echo" && strings.Contains(string(raw), "evil") {
			return errors.New("at /: got string, want object")
		}
		return nil
	}
	va := newViolations()
	a, _ := newPair(t, echo, echo, Options{Validate: validate, OnViolation: va.on}, Options{})
	var got any
	err := a.Call(context.Background(), "echo", "evil", &got)
	var x *Violation
	if !errors.As(err, &x) {
		t.Fatalf("call with a bad result returned %v, want a *Violation", err)
	}
	if !strings.Contains(x.What, "echo result") || !strings.Contains(x.What, "at /") {
		t.Errorf("violation %q", x.What)
	}
	if got != nil {
		t.Errorf("a rejected result was decoded: %v", got)
	}
	if y := va.wait(t); y != x {
		t.Errorf("OnViolation got %v, the call got %v", y, x)
	}
	if err := a.Call(context.Background(), "echo", "fine", &got); err != nil || got != "fine" {
		t.Errorf("next call: %v, %v", got, err)
	}
}

func TestResultThatDoesNotDecode(t *testing.T) {
	va := newViolations()
	a, _ := newPair(t, echo, echo, Options{OnViolation: va.on}, Options{})
	var n int
	err := a.Call(context.Background(), "echo", "text", &n)
	var x *Violation
	if !errors.As(err, &x) || !strings.Contains(x.What, "echo result does not decode") {
		t.Errorf("got %v", err)
	}
	va.wait(t)
}

func TestHandlerErrors(t *testing.T) {
	h := func(_ context.Context, r *Request) (any, error) {
		switch r.Method {
		case "coded":
			return nil, &Error{Code: -32001, Message: "config rejected", Data: json.RawMessage(`{"field":"x"}`)}
		case "wrapped":
			return nil, fmt.Errorf("context: %w", &Error{Code: -32005, Message: "unknown session"})
		case "plain":
			return "ignored", errors.New("something broke")
		case "unmarshalable":
			return func() {}, nil
		}
		return nil, nil
	}
	a, _ := newPair(t, echo, h, Options{}, Options{})
	ctx := context.Background()
	var e *Error
	if err := a.Call(ctx, "coded", nil, nil); !errors.As(err, &e) || e.Code != -32001 || e.Message != "config rejected" || string(e.Data) != `{"field":"x"}` {
		t.Errorf("coded: %v", err)
	}
	if err := a.Call(ctx, "wrapped", nil, nil); !errors.As(err, &e) || e.Code != -32005 {
		t.Errorf("wrapped: %v", err)
	}
	if err := a.Call(ctx, "plain", nil, nil); !errors.As(err, &e) || e.Code != -32603 || e.Message != "something broke" {
		t.Errorf("plain: %v", err)
	}
	if err := a.Call(ctx, "unmarshalable", nil, nil); !errors.As(err, &e) || e.Code != -32603 || !strings.Contains(e.Message, "marshal result") {
		t.Errorf("unmarshalable: %v", err)
	}
}

func TestCloseFailsPending(t *testing.T) {
	started := make(chan struct{})
	peerCtx := make(chan error, 1)
	h := func(ctx context.Context, r *Request) (any, error) {
		close(started)
		<-ctx.Done()
		peerCtx <- ctx.Err()
		return nil, ctx.Err()
	}
	a, b := newPair(t, echo, h, Options{}, Options{})
	callErr := make(chan error, 1)
	go func() { callErr <- a.Call(context.Background(), "block", nil, nil) }()
	recv(t, started, "the peer's handler to start")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, callErr, "the pending call"); !errors.Is(err, ErrClosed) {
		t.Errorf("pending call after Close: %v, want ErrClosed", err)
	}
	recv(t, a.Done(), "a to end")
	if a.Err() != nil {
		t.Errorf("Err after Close: %v, want nil", a.Err())
	}
	if err := a.Call(context.Background(), "ping", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// The peer sees a clean EOF, and its in-flight handler is cancelled.
	recv(t, b.Done(), "b to see EOF")
	if b.Err() != nil {
		t.Errorf("peer Err after a clean close: %v", b.Err())
	}
	if err := recv(t, peerCtx, "the peer's handler ctx"); !errors.Is(err, context.Canceled) {
		t.Errorf("peer handler ctx: %v", err)
	}
}

func TestFinalLineWithoutNewline(t *testing.T) {
	got := make(chan string, 1)
	h := func(_ context.Context, r *Request) (any, error) {
		got <- r.Method
		return nil, nil
	}
	cr, tw := io.Pipe()
	c := New(cr, io.Discard, nil, h, Options{})
	c.Start()
	go func() {
		_, _ = io.WriteString(tw, `{"jsonrpc":"2.0","method":"last"}`)
		tw.Close()
	}()
	if m := recv(t, got, "the last notification"); m != "last" {
		t.Errorf("got %q", m)
	}
	recv(t, c.Done(), "EOF")
	if c.Err() != nil {
		t.Errorf("Err after EOF: %v", c.Err())
	}
}
