// Package canon turns JSON into one canonical byte form: object keys sorted,
// no insignificant whitespace, array order kept, numbers exactly as written.
// The doom-loop hash (TA-12, A-04), the concurrency key (TA-16) and the
// transform check that only messages changed (HD-09) all compare JSON this
// way, so that key order or spacing never makes two equal values differ.
package canon
