package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records every Write a Conn makes, as the peer's reads would see
// their boundaries.
type writes struct {
	mu  sync.Mutex
	w   io.Writer
	all [][]byte
}

func (r *writes) Write(b []byte) (int, error) {
	r.mu.Lock()
	r.all = append(r.all, bytes.Clone(b))
	r.mu.Unlock()
	return r.w.Write(b)
}

// CallWithNext's request goes out after the next message, in the same
// write, and its answer comes back through the returned function.
func TestCallWithNextRidesTheNextWrite(t *testing.T) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	rec := &writes{w: aw}
	got := make(chan string, 4)
	a := New(ar, rec, pipeEnd{ar, aw}, func(context.Context, *Request) (any, error) { return nil, nil }, Options{})
	b := New(br, bw, pipeEnd{br, bw}, func(_ context.Context, r *Request) (any, error) {
		got <- r.Method
		return map[string]string{"seen": r.Method}, nil
	}, Options{})
	a.Start()
	b.Start()
	t.Cleanup(func() { a.Close(); b.Close(); waitClosed(t, a, "a"); waitClosed(t, b, "b") })

	answer, err := a.CallWithNext("second", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.CallWithNext("third", nil); err == nil {
		t.Fatal("a second CallWithNext while one waits: no error")
	}
	if err := a.Notify("first", nil); err != nil {
		t.Fatal(err)
	}
	raw, err := answer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]string
	if err := json.Unmarshal(raw, &res); err != nil || res["seen"] != "second" {
		t.Fatalf("answer %s (%v), want the peer's answer to \"second\"", raw, err)
	}
	if m1, m2 := <-got, <-got; m1 != "first" || m2 != "second" {
		t.Fatalf("the peer saw %q then %q, want first then second", m1, m2)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.all) != 1 {
		t.Fatalf("%d writes %q, want the notification and the request in one", len(rec.all), rec.all)
	}
	lines := bytes.Split(bytes.TrimSpace(rec.all[0]), []byte("\n"))
	if len(lines) != 2 || !bytes.Contains(lines[0], []byte(`"first"`)) || !bytes.Contains(lines[1], []byte(`"second"`)) {
		t.Fatalf("the write holds %q, want the notification's line then the request's", rec.all[0])
	}
}

// CallNewlineApart writes the line and its newline in two writes, and the
// peer still reads one request and answers it.
func TestCallNewlineApart(t *testing.T) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	rec := &writes{w: aw}
	a := New(ar, rec, pipeEnd{ar, aw}, func(context.Context, *Request) (any, error) { return nil, nil }, Options{})
	b := New(br, bw, pipeEnd{br, bw}, func(_ context.Context, r *Request) (any, error) {
		return map[string]string{"seen": r.Method}, nil
	}, Options{})
	a.Start()
	b.Start()
	t.Cleanup(func() { a.Close(); b.Close(); waitClosed(t, a, "a"); waitClosed(t, b, "b") })

	raw, err := a.CallNewlineApart(context.Background(), "apart", nil, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]string
	if err := json.Unmarshal(raw, &res); err != nil || res["seen"] != "apart" {
		t.Fatalf("answer %s (%v), want the peer's answer to \"apart\"", raw, err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if n := len(rec.all); n != 2 || string(rec.all[1]) != "\n" || bytes.Contains(rec.all[0], []byte("\n")) {
		t.Fatalf("writes %q, want the line then its newline alone", rec.all)
	}
}

// CallLineOf writes a line of exactly the size asked for, newline
// excluded, and the longest line PROTOCOL.md §2 allows is read.
func TestCallLineOfTheLongestLine(t *testing.T) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	rec := &writes{w: aw}
	a := New(ar, rec, pipeEnd{ar, aw}, func(context.Context, *Request) (any, error) { return nil, nil }, Options{})
	b := New(br, bw, pipeEnd{br, bw}, func(_ context.Context, r *Request) (any, error) {
		return map[string]int{"params": len(r.Params)}, nil
	}, Options{})
	a.Start()
	b.Start()
	t.Cleanup(func() { a.Close(); b.Close(); waitClosed(t, a, "a"); waitClosed(t, b, "b") })

	pad := func(n int) any { return map[string]string{"fill": strings.Repeat("x", n)} }
	if _, err := a.CallLineOf(context.Background(), "long", pad, DefaultMaxLine); err != nil {
		t.Fatalf("a line of %d bytes: %v", DefaultMaxLine, err)
	}
	rec.mu.Lock()
	var n int
	for _, w := range rec.all {
		n += len(w)
	}
	rec.mu.Unlock()
	if n != DefaultMaxLine+1 {
		t.Errorf("wrote %d bytes, want a line of %d and its newline", n, DefaultMaxLine)
	}
}
