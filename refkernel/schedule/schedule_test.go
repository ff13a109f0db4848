package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

func TestKeyOf(t *testing.T) {
	write := wire.ToolSchema{Provider: "fs", Name: "write", Concurrency: &wire.ConcurrencySpec{Safe: true, KeyFields: []string{"path"}}}
	read := wire.ToolSchema{Provider: "fs", Name: "read", Concurrency: &wire.ConcurrencySpec{Safe: true}}
	undeclared := wire.ToolSchema{Provider: "fs", Name: "rm"}
	unsafe := wire.ToolSchema{Provider: "fs", Name: "mv", Concurrency: &wire.ConcurrencySpec{Safe: false, KeyFields: []string{"path"}}}
	other := wire.ToolSchema{Provider: "net", Name: "get"}
	key := func(s wire.ToolSchema, in string) Key { return KeyOf(s, json.RawMessage(in)) }

	cases := []struct {
		name     string
		a, b     Key
		conflict bool
	}{
		{"same path", key(write, `{"path":"a","data":1}`), key(write, `{"data":2,"path":"a"}`), true},
		{"different path", key(write, `{"path":"a"}`), key(write, `{"path":"b"}`), false},
		{"key value canonical", key(write, `{"path":{"x":1,"y":2}}`), key(write, `{"path":{"y":2, "x":1}}`), true},
		{"missing field is null", key(write, `{}`), key(write, `{"path":null}`), true},
		{"safe without key fields", key(read, `{"p":1}`), key(read, `{"p":1}`), false},
		{"undeclared locks provider", key(undeclared, `{}`), key(read, `{}`), true},
		{"unsafe ignores key fields", key(unsafe, `{"path":"a"}`), key(unsafe, `{"path":"b"}`), true},
		{"unsafe blocks safe keyed", key(unsafe, `{}`), key(write, `{"path":"a"}`), true},
		{"providers independent", key(undeclared, `{}`), key(other, `{}`), false},
		{"tools with same key value", key(write, `{"path":"a"}`), key(wire.ToolSchema{Provider: "fs", Name: "append", Concurrency: write.Concurrency}, `{"path":"a"}`), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.a.Conflicts(c.b); got != c.conflict {
				t.Fatalf("Conflicts = %v, want %v (%+v vs %+v)", got, c.conflict, c.a, c.b)
			}
			if c.a.Conflicts(c.b) != c.b.Conflicts(c.a) {
				t.Fatal("Conflicts is not symmetric")
			}
		})
	}
}

// recorder logs job starts and ends and lets a test hold jobs at a gate.
type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, s)
}

func TestDistinctKeysOverlap(t *testing.T) {
	// Every job waits until all three have started: a scheduler that
	// serializes them never gets past the barrier.
	var started sync.WaitGroup
	started.Add(3)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	var jobs []Job
	for i := range 3 {
		jobs = append(jobs, Job{Key: Key{Provider: "fs", Slot: fmt.Sprint(i)}, Run: func(context.Context) {
			started.Done()
			<-all
		}})
	}
	finished := make(chan struct{})
	go func() { Standard{}.Run(context.Background(), jobs, true); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("calls with distinct keys did not overlap")
	}
}

func TestConflictingKeysKeepMessageOrder(t *testing.T) {
	r := &recorder{}
	job := func(name string, k Key) Job {
		return Job{Key: k, Run: func(context.Context) { r.add("start " + name); r.add("end " + name) }}
	}
	a, b := Key{Provider: "fs", Slot: "a"}, Key{Provider: "fs", Slot: "b"}
	for range 50 { // the scheduler's goroutines race; order must hold every time
		r.log = nil
		Standard{}.Run(context.Background(), []Job{job("a1", a), job("b", b), job("a2", a)}, true)
		i1, e1, i2 := slices.Index(r.log, "start a1"), slices.Index(r.log, "end a1"), slices.Index(r.log, "start a2")
		if i1 < 0 || e1 > i2 {
			t.Fatalf("second a ran before the first ended: %v", r.log)
		}
	}
}

func TestExclusiveWaitsForEarlierAndBlocksLater(t *testing.T) {
	r := &recorder{}
	job := func(name string, k Key) Job {
		return Job{Key: k, Run: func(context.Context) { r.add("start " + name); r.add("end " + name) }}
	}
	for range 50 {
		r.log = nil
		Standard{}.Run(context.Background(), []Job{
			job("s1", Key{Provider: "p", Slot: "x"}),
			job("lock", Key{Provider: "p", Exclusive: true}),
			job("s2", Key{Provider: "p"}),
		}, true)
		if !(slices.Index(r.log, "end s1") < slices.Index(r.log, "start lock") &&
			slices.Index(r.log, "end lock") < slices.Index(r.log, "start s2")) {
			t.Fatalf("provider lock not honoured: %v", r.log)
		}
	}
}

func TestNoParallelSerializesInOrder(t *testing.T) {
	r := &recorder{}
	var jobs []Job
	for i := range 4 {
		name := fmt.Sprint(i)
		jobs = append(jobs, Job{Key: Key{Provider: "p", Slot: name}, Run: func(context.Context) {
			r.add("start " + name)
			r.add("end " + name)
		}})
	}
	Standard{}.Run(context.Background(), jobs, false)
	want := []string{"start 0", "end 0", "start 1", "end 1", "start 2", "end 2", "start 3", "end 3"}
	if !slices.Equal(r.log, want) {
		t.Fatalf("got %v", r.log)
	}
}

func TestStandardKeys(t *testing.T) {
	k := StandardKeys{}
	safe := &wire.ConcurrencySpec{Safe: true}
	ask := wire.ToolSchema{Provider: "ui", Name: "ask", Kind: wire.KindInteractive, Concurrency: safe}
	confirm := wire.ToolSchema{Provider: "other", Name: "confirm", Kind: wire.KindInteractive}
	read := wire.ToolSchema{Provider: "ui", Name: "read", Kind: wire.KindDataSource, Concurrency: safe}
	in := json.RawMessage(`{}`)
	if !k.Key(ask, in).Conflicts(k.Key(ask, in)) {
		t.Error("an interactive call declared safe must still conflict with another")
	}
	if !k.Key(ask, in).Conflicts(k.Key(confirm, in)) {
		t.Error("interactive calls of different providers must conflict: one human answers them")
	}
	if k.Key(ask, in).Conflicts(k.Key(read, in)) {
		t.Error("the interactive key must not lock the provider's other tools")
	}
	if k.Key(read, in) != KeyOf(read, in) {
		t.Error("reads use KeyOf")
	}
}
