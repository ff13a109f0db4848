// Package await runs one Host call under a deadline the kernel enforces
// itself. Over the wire the transport already gives up when the context
// ends, but an in-process Host may ignore its context; the kernel must not
// hang on it either (a hung hook subscriber is a TIMEOUT, HD-05; a hung
// preview only leaves the item without one, PA-12).
package await
