// Package driver runs sessions on a kernel under test: it launches the
// kernel, negotiates the protocol, routes every kernel → harness message to
// the fakes of the scenario whose session it belongs to, and turns anything
// the kernel does wrong at the protocol level — a crash, a hang, a schema
// violation, garbage on stdout, a flood — into a Fault, which the runner
// reports as an `error` verdict. Kernels that faulted are discarded, never
// reused, so one broken scenario cannot poison the next.
package driver
