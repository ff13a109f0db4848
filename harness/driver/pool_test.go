package driver

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
)

// slowStart is a kernel that spends startUp(n) before it serves (the n-th
// launched, from 1), as one that loads a large runtime does; it counts how
// many are starting at once.
type slowStart struct {
	startUp            func(n int32) time.Duration
	launched, starting atomic.Int32
	peak               atomic.Int32
	startedBeforeFirst atomic.Int32
	firstDone          atomic.Bool
}

func (l *slowStart) Describe() string { return "slow-start" }

func (l *slowStart) Launch(ctx context.Context) (*adapter.Endpoint, error) {
	n := l.launched.Add(1)
	if n > 1 && !l.firstDone.Load() {
		l.startedBeforeFirst.Add(1)
	}
	cur := l.starting.Add(1)
	for {
		p := l.peak.Load()
		if cur <= p || l.peak.CompareAndSwap(p, cur) {
			break
		}
	}
	return adapter.InProcess{Name: "slow-start", Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		time.Sleep(l.startUp(n))
		l.starting.Add(-1)
		l.firstDone.Store(true)
		return rawKernel{}.serve(ctx, in, out)
	}}.Launch(ctx)
}

// getAll asks the pool for n kernels at once and returns the errors.
func getAll(t *testing.T, p *Pool, n int) []error {
	t.Helper()
	errs := make([]error, n)
	ks := make([]*Kernel, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ks[i], errs[i] = p.Get(context.Background())
		}()
	}
	wg.Wait()
	for _, k := range ks {
		if k != nil {
			p.Put(k)
		}
	}
	return errs
}

// Kernels queued behind others are not charged for the wait: eight that
// each take a fifth of the initialize timeout to start, one slot, all
// start, though the last one waited longer than the timeout in the queue.
// And no more than one kernel starts before the first has started.
func TestQueuedStartIsNotCharged(t *testing.T) {
	l := &slowStart{startUp: func(int32) time.Duration { return 200 * time.Millisecond }}
	p := NewPool(l)
	defer p.Close()
	p.InitTimeout, p.StartSlots = time.Second, 1
	for i, err := range getAll(t, p, 8) {
		if err != nil {
			t.Errorf("kernel %d: %v", i+1, err)
		}
	}
	if got := l.peak.Load(); got != 1 {
		t.Errorf("%d kernels started at once, want at most 1 (StartSlots)", got)
	}
	if got := l.startedBeforeFirst.Load(); got != 0 {
		t.Errorf("%d kernels launched before the first had started", got)
	}
	if p.FirstStart() < 200*time.Millisecond {
		t.Errorf("FirstStart %v, want at least the kernel's 200ms start-up", p.FirstStart())
	}
}

// At most StartSlots kernels start at once, once the first has started.
func TestStartSlotsBoundStarts(t *testing.T) {
	l := &slowStart{startUp: func(int32) time.Duration { return 50 * time.Millisecond }}
	p := NewPool(l)
	defer p.Close()
	p.StartSlots = 3
	for i, err := range getAll(t, p, 12) {
		if err != nil {
			t.Errorf("kernel %d: %v", i+1, err)
		}
	}
	if got := l.peak.Load(); got > 3 {
		t.Errorf("%d kernels started at once, want at most 3", got)
	}
}

// A later kernel may take StartMargin times the first one's start-up, when
// that is longer than InitTimeout: the first was measured alone, the later
// ones share the machine with running scenarios.
func TestLaterStartsGetAMarginOverTheFirst(t *testing.T) {
	l := &slowStart{startUp: func(n int32) time.Duration {
		if n == 1 {
			return 400 * time.Millisecond
		}
		return 800 * time.Millisecond // slower under load, within 5x
	}}
	p := NewPool(l)
	defer p.Close()
	p.InitTimeout = 500 * time.Millisecond
	k1, err := p.Get(context.Background())
	if err != nil {
		t.Fatalf("first kernel: %v", err)
	}
	defer p.Put(k1)
	k2, err := p.Get(context.Background())
	if err != nil {
		t.Fatalf("second kernel: %v", err)
	}
	p.Put(k2)
}
