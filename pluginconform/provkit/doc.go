// Package provkit is what the context and memory provider engines
// (packages contextprov and memoryprov) share beyond package kit: the
// launch of a plugin under its category's plugin-map key with the kernel
// callback service served, telling a call the plugin answered from one
// that never got an answer (a hang, a dead process, a broken connection),
// a category's error detail read from a gRPC status, the judgement of the
// optional hook-point and slash-command declarations, the secret-watch
// verdict, and the not-reached sweep for rules nothing exercised.
package provkit
