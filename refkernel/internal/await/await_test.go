package await

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCall(t *testing.T) {
	v, err := Call(context.Background(), 0, func(context.Context) (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("got %d, %v", v, err)
	}
	stuck := make(chan struct{})
	defer close(stuck)
	_, err = Call(context.Background(), 1_000_000, func(context.Context) (int, error) { <-stuck; return 0, nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

// f's deadline is its timeout from when f starts, never earlier than from
// the call (which a machine too busy to start f at once would see), and a
// parent that ends first ends the call.
func TestCallTimesFromTheStartOfF(t *testing.T) {
	called := time.Now()
	v, err := Call(context.Background(), 50*time.Millisecond, func(ctx context.Context) (int, error) {
		if dl, ok := ctx.Deadline(); !ok || dl.Before(called.Add(50*time.Millisecond)) {
			return 0, errors.New("f's deadline is earlier than its timeout from the call")
		}
		return 1, nil
	})
	if v != 1 || err != nil {
		t.Fatalf("got %d, %v", v, err)
	}
	parent, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Call(parent, time.Hour, func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("ended parent: err = %v", err)
	}
}
