// Package retry decides whether a failed model request is tried again
// (ER-01, ER-02, ER-03, ER-05).
//
// Only the seam exists so far: the loop asks the Policy part after every
// model error, and the default, None, never retries, so a model error ends
// the session failed. Backoff with jitter, retry-after and the per-session
// cap will come as another Policy without touching the loop.
package retry
