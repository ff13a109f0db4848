// Package fakehost is a scriptable in-memory Host for the kernel's own
// tests and benchmarks. It logs every request in arrival order, which is
// the observable order of the turn (TA-01), and keeps every notification.
package fakehost
