package await

import (
	"context"
	"time"
)

type result[T any] struct {
	v   T
	err error
}

// started is the context f runs with, made when f starts.
type started struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// Call runs f with a context that ends timeout after f starts (never, when
// timeout is zero) and returns as soon as f returns or the context ends,
// whichever comes first. In the second case the error is the context's.
//
// The timeout starts in f's goroutine, right before f: on a busy machine
// (load 50 on 2 cores) that goroutine waited longer than a hook's 116 ms
// timeout to run, so a clock started before it gave up on a subscriber
// whose request was never sent.
func Call[T any](ctx context.Context, timeout time.Duration, f func(context.Context) (T, error)) (T, error) {
	ready := make(chan started, 1)
	done := make(chan result[T], 1) // buffered: a late f must not block forever
	go func() {
		s := started{ctx, func() {}}
		if timeout > 0 {
			s.ctx, s.cancel = context.WithTimeout(ctx, timeout)
		}
		ready <- s
		v, err := f(s.ctx)
		done <- result[T]{v, err}
	}()
	var s started
	var zero T
	select {
	case s = <-ready:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	defer s.cancel()
	select {
	case r := <-done:
		return r.v, r.err
	case <-s.ctx.Done():
		return zero, s.ctx.Err()
	}
}
