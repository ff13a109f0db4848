// Package fakes holds the scriptable providers the harness hosts around the
// kernel under test: model, tools, hook subscribers, frontend and context
// provider. A World is one scenario's set of fakes; it answers every
// kernel → harness request of that scenario's sessions and records each one
// in the scenario's call log.
//
// Fakes never sleep to order events. A call that must overlap another waits
// at a Barrier; a call that must be held waits on a Gate the scenario opens.
package fakes
