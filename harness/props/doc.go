// Package props holds property-based tests of kernel behaviour: random
// sessions run against the reference kernel in-process, over the same wire
// protocol and fakes the conformance scenarios use, with invariants checked
// on the recorded log. A failing case is shrunk and printed as a Gherkin
// scenario that reproduces it with the step library.
//
// hookchain_test.go generates random hook chains (hook dispatch, HD-*).
// concurrency_test.go generates random messages mixing all three tool
// kinds with random concurrency declarations and policies (TA-14…TA-30,
// PA-*): no conflicting calls overlap, denied calls never run and get a
// result, allowed calls run once, and the groups keep their order.
// Both draw their cases with rapid, which shrinks a failing one (more
// cases: -rapid.checks=N, replay: -rapid.seed=S).
package props
