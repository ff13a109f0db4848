package mutants

import (
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
)

// The crash breaker under its declared reading (ER-10, A-33). A kernel
// that declares errors.crash_breaker.count = per_provider_in_a_row is held
// to the threshold it was given (error_recovery_breaker.feature); the
// plain ER-10 scenario, which sets both tiers and allows ten turns, lets a
// breaker that trips one crash late through. The same late breaker with
// no reading declared is a legal kernel: what it counts is open.
func init() {
	register(Mutant{Name: "tools/crash-breaker-one-late", Targets: []string{"ER-10"},
		Breaks: "the crash breaker trips one crash after its threshold while the kernel declares errors.crash_breaker.count = per_provider_in_a_row",
		Apply:  withTools(lateTrip{})})
	registerVariant(Variant{Name: "errors/crash-breaker-own-count",
		Reading: "A-33: the kernel counts crashes its own way (here the breaker trips one crash after the threshold) and declares no errors.crash_breaker.count; only the plain ER-10 scenario judges it",
		Apply:   withTools(lateTrip{}),
		Options: []refkernel.Option{withoutReadings("errors.crash_breaker.count")},
		Tags:    "@ER-10"})
}

type lateTrip struct{ retry.StandardTools }

func (lateTrip) Trips(crashes int, cb *wire.CircuitBreaker) bool {
	return retry.StandardTools{}.Trips(crashes-1, cb)
}
