package fakes

// CrashError is what a crashing tool provider "does": the harness answers
// the invoke with CodeProcessCrashed (ER-09). A ToolBehavior.Respond script
// returns it to crash on some calls only.
func CrashError(msg string) error { return crashError(msg) }
