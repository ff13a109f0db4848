// Package fakes holds the scriptable providers the harness hosts around the
// kernel under test: model, tools, hook subscribers, frontend and context
// provider. A World is one scenario's set of fakes; it answers every
// kernel → harness request of that scenario's sessions and records each one
// in the scenario's call log.
//
// Fakes never sleep to order events. A call that must overlap another waits
// at a Barrier; a call that must be held waits on a Gate the scenario opens.
// A Hold (ToolBehavior.Hold, Interactive.Hold, Permission.Hold) keeps a call
// unanswered for a grace window, so that a kernel that wrongly starts
// another call meanwhile is seen doing so in the recorded order; it never
// decides an order by itself. Tools answer tool/preview as their
// PreviewMode says (a preview, an error, a hang, or method-not-found), and
// the frontend answers each plan item from a per-tool script whose last
// answer repeats.
//
// Sub-agents (spawn.go): a spawn-capable tool calls the kernel back with
// session/spawn through the Spawner the driver binds to the world; child
// sessions, known by their session_meta rows, are answered from a model
// script per profile, and a ModelHold keeps their requests waiting for the
// grace window in which a kernel that breaks a rule shows it.
package fakes
