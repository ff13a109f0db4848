package adapter

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// A kernel whose serve function never returns (deadlocked on its own lock,
// or looping past its context) cannot hold Close, and so the run, beyond
// its grace; Close says it left the kernel running. One that returns is
// waited for and closes cleanly.
func TestInProcessCloseLeavesAHungKernelBehind(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	hung := InProcess{Name: "deadlocked", StopGrace: 50 * time.Millisecond, Serve: func(context.Context, io.Reader, io.Writer) error {
		<-stuck // ignores its input and its context
		return nil
	}}
	ep, err := hung.Launch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ep.Close() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "deadlocked did not stop within 50ms") {
			t.Errorf("Close of a hung kernel: %v, want it named as left running", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for a kernel that never stops")
	}
	if err := ep.Close(); err == nil {
		t.Error("a second Close forgot that the kernel was left running")
	}

	served := make(chan struct{})
	good := InProcess{Name: "good", StopGrace: time.Hour, Serve: func(ctx context.Context, in io.Reader, _ io.Writer) error {
		defer close(served)
		_, _ = io.Copy(io.Discard, in)
		<-ctx.Done()
		return nil
	}}
	ep, err = good.Launch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.Close(); err != nil {
		t.Errorf("Close of a kernel that stops: %v", err)
	}
	select {
	case <-served:
	default:
		t.Error("Close returned before the kernel stopped")
	}
}
