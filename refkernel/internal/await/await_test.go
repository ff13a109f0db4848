package await

import (
	"context"
	"errors"
	"testing"
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
