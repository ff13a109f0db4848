package retry

import (
	"testing"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

func ip(v int) *int           { return &v }
func fp(v float64) *float64   { return &v }
func i64(v int64) *int64      { return &v }
func fixed(r float64) Backoff { return Backoff{Rand: func() float64 { return r }} }

func TestValidate(t *testing.T) {
	if Validate(nil) != nil || Validate(&wire.Retry{BaseDelayMS: ip(1), BackoffFactor: fp(2), MaxRetries: ip(1)}) != nil {
		t.Fatal("complete block refused")
	}
	for _, partial := range []*wire.Retry{
		{BaseDelayMS: ip(1)}, {BackoffFactor: fp(2)}, {MaxRetries: ip(3)},
		{BaseDelayMS: ip(1), BackoffFactor: fp(2)}, {SessionMaxRetries: ip(3)},
	} {
		if Validate(partial) == nil {
			t.Fatalf("partial block %+v accepted", partial)
		}
	}
}

func TestDefaults(t *testing.T) {
	s := Resolve(nil)
	if s.Base != 500*time.Millisecond || s.Factor != 2 || s.MaxRetries != 5 || s.SessionMaxRetries != DefaultSessionMaxRetries {
		t.Fatalf("defaults %+v", s)
	}
	want := []time.Duration{500, 1000, 2000, 4000, 8000}
	for k, w := range want {
		if got := s.Nominal(k + 1); got != w*time.Millisecond {
			t.Fatalf("nominal %d = %v, want %v", k+1, got, w*time.Millisecond)
		}
	}
}

func TestDecideCategories(t *testing.T) {
	b := fixed(0.5)
	for cat, want := range map[string]Action{
		wire.ModelErrRateLimited:     Retry,
		wire.ModelErrOverloaded:      Retry,
		wire.ModelErrContextLength:   Reduce,
		wire.ModelErrAuth:            Fail,
		wire.ModelErrInvalidRequest:  Fail,
		wire.ModelErrContentFiltered: Fail,
		wire.ModelErrUnknown:         Fail,
	} {
		if got := b.Decide(nil, wire.ModelError{Category: cat, Retryable: true}, State{Attempt: 1}).Action; got != want {
			t.Errorf("%s: action %v, want %v", cat, got, want)
		}
	}
	if b.Decide(nil, wire.ModelError{Category: wire.ModelErrContextLength}, State{Attempt: 1, Reductions: MaxReductions}).Action != Fail {
		t.Error("reductions are not bounded")
	}
}

func TestCaps(t *testing.T) {
	cfg := &wire.Retry{BaseDelayMS: ip(10), BackoffFactor: fp(2), MaxRetries: ip(3), SessionMaxRetries: ip(4)}
	e := wire.ModelError{Category: wire.ModelErrRateLimited, Retryable: true}
	b := fixed(0)
	for attempt := 1; attempt <= 3; attempt++ {
		if b.Decide(cfg, e, State{Attempt: attempt}).Action != Retry {
			t.Fatalf("attempt %d not retried", attempt)
		}
	}
	if b.Decide(cfg, e, State{Attempt: 4}).Action != Fail {
		t.Fatal("per-call cap ignored")
	}
	if b.Decide(cfg, e, State{Attempt: 1, SessionRetries: 4}).Action != Fail {
		t.Fatal("session cap ignored")
	}
}

func TestJitterAndRetryAfter(t *testing.T) {
	set := Settings{Base: 100 * time.Millisecond, Factor: 2}
	if d := fixed(0).Delay(set, 2, nil); d != 200*time.Millisecond {
		t.Fatalf("top of range %v", d)
	}
	if d := fixed(0.999999).Delay(set, 2, nil); d < 100*time.Millisecond || d > 101*time.Millisecond {
		t.Fatalf("bottom of range %v", d)
	}
	if d := fixed(0).Delay(set, 1, i64(700)); d != 700*time.Millisecond {
		t.Fatalf("retry-after not honoured: %v", d)
	}
	if d := fixed(0).Delay(set, 3, i64(10)); d != 400*time.Millisecond {
		t.Fatalf("short retry-after shortened the backoff: %v", d)
	}
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[Backoff{}.Delay(set, 3, nil)] = true
	}
	if len(seen) < 10 {
		t.Fatalf("no jitter: %d distinct delays in 50", len(seen))
	}
}

func TestToolRetryOnlyWhenIdempotent(t *testing.T) {
	st := StandardTools{}
	cases := []struct {
		tool wire.ToolSchema
		want bool
	}{
		{wire.ToolSchema{Kind: wire.KindDataSource}, true},
		{wire.ToolSchema{Kind: wire.KindResource, Idempotent: true}, true},
		{wire.ToolSchema{Kind: wire.KindResource}, false},
		{wire.ToolSchema{Kind: wire.KindInteractive}, false},
		{wire.ToolSchema{Kind: wire.KindInteractive, Idempotent: true}, false},
	}
	for _, c := range cases {
		if got := st.Retry(c.tool, 1); got != c.want {
			t.Errorf("%+v: retry %v", c.tool, got)
		}
	}
	if st.Retry(wire.ToolSchema{Kind: wire.KindDataSource}, MaxToolRetries+1) {
		t.Error("tool retries are not bounded")
	}
}

func TestCrashResultAndBreaker(t *testing.T) {
	st := StandardTools{}
	r, fatal := st.Failed(true, "exit 1")
	if fatal || !r.IsError || r.ErrorCategory != wire.ToolErrProcessCrashed {
		t.Fatalf("crash result %+v fatal %v", r, fatal)
	}
	if st.Trips(99, nil) || st.Trips(4, &wire.CircuitBreaker{Consecutive: 5}) || !st.Trips(5, &wire.CircuitBreaker{Consecutive: 5}) ||
		!st.Trips(2, &wire.CircuitBreaker{Window: 4, WindowMax: 2}) || st.Trips(9, &wire.CircuitBreaker{}) {
		t.Fatal("crash thresholds")
	}
}

func TestOutputSchema(t *testing.T) {
	m, err := CompileOutputSchemas([]wire.ToolSchema{
		{Name: "count", OutputSchema: map[string]any{"type": "object", "required": []any{"n"}, "properties": map[string]any{"n": map[string]any{"type": "integer"}}}},
		{Name: "free"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m["free"]; ok {
		t.Fatal("schema for a tool without one")
	}
	if err := m["count"].Check([]byte(`{"n":3}`)); err != nil {
		t.Fatalf("good output refused: %v", err)
	}
	if err := m["count"].Check([]byte(`{"n":"three"}`)); err == nil {
		t.Fatal("bad output accepted")
	}
	if err := m["count"].Check(nil); err == nil {
		t.Fatal("absent output accepted")
	}
	if err := (*OutputSchema)(nil).Check([]byte(`"x"`)); err != nil {
		t.Fatal("nil schema refused")
	}
	if _, err := CompileOutputSchemas([]wire.ToolSchema{{Name: "bad", OutputSchema: map[string]any{"type": 12}}}); err == nil {
		t.Fatal("bad schema compiled")
	}
}
