// Package host is the kernel's view of the harness: the Host interface every
// kernel part talks to, the error type a Host uses to carry a JSON-RPC error
// code (a crashed tool, ER-09; a failed or crashed hook subscriber, HD-03,
// HD-04, HD-14), and a helper for the state-backend events the kernel
// reports. It is a leaf package so that every part can depend on it.
package host
