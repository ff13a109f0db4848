// Package driver runs sessions on a kernel under test: it launches the
// kernel, negotiates the protocol, routes every kernel → harness message to
// the fakes of the scenario whose session it belongs to, and turns anything
// the kernel does wrong at the protocol level — a crash, a hang, a schema
// violation, a message that does not decode, garbage on stdout, a message
// before initialize is answered, a flood — into a Fault, which the runner
// reports as an `error` verdict. Kernels that faulted are discarded, never
// reused, so one broken scenario cannot poison the next.
//
// What one scenario may make conform hold is bounded (flood.go:
// MaxMessagesPerScenario, MaxBytesPerScenario), and the scenario timeout
// does not count the time conform itself spends reading the kernel's
// messages (deadline.go), so that conform's slowness is never reported as
// the kernel's hang. Serves PROTOCOL.md §2–§5 (transport, validation,
// version negotiation, lifecycle) and issue 13.
package driver
