// Package clock is the kernel's only source of time. Logic never calls
// time.Now directly: the session start, the wall-clock bound (TA-04, A-09),
// cost tier selection by receipt time (TA-25) and span timestamps all read a
// Clock handed in from outside, so tests can pin and move time at will.
package clock
