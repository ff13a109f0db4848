// Package steps is the Gherkin step library: the plain sentences scenarios
// are written in, each bound to the fakes it scripts or the recorded log it
// checks. Setup steps build the session config and script the fakes; "When
// the session runs" drives the kernel; check steps read the call log and the
// kernel's notifications and, on failure, say what was expected and what the
// kernel did. Requirement IDs live on the scenarios' tags; the checks that
// serve a requirement name it in their comments (search for the ID).
package steps
