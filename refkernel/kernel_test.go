package refkernel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

func config() wire.SessionConfig {
	return wire.SessionConfig{
		Profile: "test",
		Model:   wire.ModelSpec{Name: "m", Pricing: wire.Pricing{Free: true}},
		Tools:   []wire.ToolSchema{{Provider: "fs", Name: "read", Kind: wire.KindDataSource}},
		Hooks: wire.Hooks{Subscribers: []wire.Subscriber{
			{ID: "start", Point: wire.PointSessionStart, Mode: wire.ModeObserve},
			{ID: "end", Point: wire.PointSessionEnd, Mode: wire.ModeObserve},
		}},
	}
}

func TestCancelEndsSessionOnce(t *testing.T) {
	k := New(Parts{})
	started := make(chan struct{})
	h := &fakehost.Host{
		OnModel: func(int, wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			return fakehost.Calls(fakehost.Call("c", "read", `{}`)), nil
		},
		OnInvoke: func(ctx context.Context, _ wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
			close(started)
			<-ctx.Done() // a tool that only stops when told to
			return wire.ToolInvokeResult{}, ctx.Err()
		},
	}
	done := make(chan wire.RunSessionResult, 1)
	go func() {
		res, err := k.Run(context.Background(), h, wire.RunParams{SessionID: "s1", Config: config()})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-started
	// The id is taken while the session runs.
	if _, err := k.Run(context.Background(), &fakehost.Host{}, wire.RunParams{SessionID: "s1", Config: config()}); !errors.Is(err, ErrSessionRunning) {
		t.Fatalf("duplicate session id: %v", err)
	}
	if err := k.Cancel("s1"); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.Status != wire.StatusCancelled {
			t.Fatalf("status %s", res.Status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled session did not end")
	}
	log := h.Log()
	if n := countOf(log, "hook session-end end"); n != 1 {
		t.Fatalf("session-end fired %d times: %q", n, log)
	}
	metas := h.Notes(wire.NotifySessionMeta)
	if last := metas[len(metas)-1].(wire.SessionMeta); last.Status != wire.StatusCancelled || last.EndedAt == "" {
		t.Fatalf("last session_meta %+v", last)
	}
	if err := k.Cancel("s1"); err != nil {
		t.Fatalf("cancelling an ended session: %v", err)
	}
	if !errors.Is(k.Cancel("never"), ErrUnknownSession) {
		t.Fatal("an unknown session can be cancelled")
	}
}

func TestConfigError(t *testing.T) {
	cfg := config()
	cfg.Hooks.Subscribers = append(cfg.Hooks.Subscribers, wire.Subscriber{ID: "ctx", Point: wire.PointContextAssemble, Mode: wire.ModeObserve})
	h := &fakehost.Host{}
	_, err := New(Parts{}).Run(context.Background(), h, wire.RunParams{SessionID: "s", Config: cfg})
	var ce *ConfigError
	if !errors.As(err, &ce) || len(h.Log()) != 0 {
		t.Fatalf("err = %v, log %q", err, h.Log())
	}
}

// A part replaced in Parts is the one the kernel uses.
type neverFires struct{}

func (neverFires) Check(wire.Bounds, bounds.State) (bounds.Fired, bool) { return bounds.Fired{}, false }

func TestPartsAreSwappable(t *testing.T) {
	h := &fakehost.Host{OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		if n > 3 {
			return fakehost.Text("stop"), nil
		}
		return fakehost.Calls(fakehost.Call("c", "read", fmt.Sprintf(`{"n":%d}`, n))), nil
	}}
	one := 1
	cfg := config()
	cfg.Bounds.MaxTurns = &one
	res, err := New(Parts{Bounds: neverFires{}}).Run(context.Background(), h, wire.RunParams{SessionID: "s", Config: cfg})
	if err != nil || res.Status != wire.StatusCompleted || len(h.Requests()) != 4 {
		t.Fatalf("res %+v, err %v, %d requests", res, err, len(h.Requests()))
	}
}

func TestInfo(t *testing.T) {
	info := New(Parts{}).Info()
	if info.Kernel.Name != Name || info.ProtocolVersion != wire.Version || !slices.Contains(info.Capabilities, "hooks.concurrent_observe") ||
		info.Readings["doom_loop.default_threshold"] != "3" || info.Readings["doom_loop.status"] != wire.StatusErrorMaxTurns {
		t.Fatalf("info %+v", info)
	}
}

func countOf(log []string, entry string) int {
	n := 0
	for _, e := range log {
		if e == entry {
			n++
		}
	}
	return n
}
