package retry

import (
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

func TestNoneNeverRetries(t *testing.T) {
	d := None{}.Decide(nil, wire.ModelError{Category: wire.ModelErrRateLimited, Retryable: true}, State{Attempt: 1})
	if d.Retry {
		t.Fatal("None retried")
	}
}

func TestValidate(t *testing.T) {
	n, f := 1, 2.0
	if Validate(nil) != nil || Validate(&wire.Retry{BaseDelayMS: &n, BackoffFactor: &f, MaxRetries: &n}) != nil {
		t.Fatal("complete block refused")
	}
	if Validate(&wire.Retry{BaseDelayMS: &n}) == nil {
		t.Fatal("partial block accepted")
	}
}
