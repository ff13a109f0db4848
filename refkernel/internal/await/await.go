package await

import (
	"context"
	"time"
)

type result[T any] struct {
	v   T
	err error
}

// Call runs f with a context that ends after timeout (never, when timeout
// is zero) and returns as soon as f returns or the context ends, whichever
// comes first. In the second case the error is the context's.
func Call[T any](ctx context.Context, timeout time.Duration, f func(context.Context) (T, error)) (T, error) {
	cancel := context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	done := make(chan result[T], 1) // buffered: a late f must not block forever
	go func() {
		v, err := f(ctx)
		done <- result[T]{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
