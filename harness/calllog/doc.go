// Package calllog is the recorder: one merged log, in arrival order, of
// everything the kernel sends to the harness (requests with their start and
// end marks, and notifications). Because every provider the kernel talks to
// is hosted by the harness, this log is the observable order of the turn
// algorithm, and every ordering check is made on it rather than on timing.
package calllog
