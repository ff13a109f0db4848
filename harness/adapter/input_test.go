package adapter

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"testing"
	"time"
)

// A write to a kernel that is gone fails with ErrInputClosed, however the
// operating system put it (a broken pipe before Wait reaps the process, a
// closed file after), and for an in-process kernel that stopped serving
// instead of blocking.
func TestWriteToAGoneKernelIsErrInputClosed(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ep, err := Subprocess{Argv: []string{"sh", "-c", "exit 3"}}.Launch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	<-ep.Exited()
	if _, err := ep.In.Write([]byte("{}\n")); !errors.Is(err, ErrInputClosed) {
		t.Errorf("write after exit: %v, want ErrInputClosed", err)
	}
	ep.Close()
	if _, err := ep.In.Write([]byte("{}\n")); !errors.Is(err, ErrInputClosed) {
		t.Errorf("write after Close: %v, want ErrInputClosed", err)
	}

	ip, err := InProcess{Name: "gone", Serve: func(context.Context, io.Reader, io.Writer) error { return nil }}.Launch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ip.Close()
	<-ip.Exited()
	done := make(chan error, 1)
	go func() { _, err := ip.In.Write([]byte("{}\n")); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInputClosed) {
			t.Errorf("in-process write after exit: %v, want ErrInputClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write to an in-process kernel that stopped serving blocks")
	}
}
