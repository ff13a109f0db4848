// Package kit is what every plugin category's engine shares, so none keeps
// a copy: the recorder of checks into the kernel suite's report model
// (Recorder, Scenario: each check names the requirements it proves, a
// requirement's verdict comes only from its own checks), the secret watch
// (Secrets: every answer, event, error, log entry and stderr write the
// plugin sends is scanned for the values of its sensitive configuration
// attributes, and every report is redacted), and rapid's process-wide
// settings and test double (ConfigureRapid, TB), under which generated
// inputs are shrunk to a minimal failing one.
package kit
