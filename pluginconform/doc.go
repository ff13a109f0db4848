// Package pluginconform checks a plugin of the upstream pluggableharness
// ecosystem — a tool provider, which may also be a hook subscriber — over
// the protocol it already speaks: launched through hashicorp/go-plugin
// (package launch), spoken to in gRPC (ToolService, HookSubscriberService),
// served the kernel callback service (package callback). It is the engine
// of `conform plugin` and gives a verdict on every requirement of the
// plugin profile, PL-01..PL-31 in spec/requirements.json, through the
// kernel suite's report model (package report): the same statuses, honesty
// rules, writers and gate.
//
// A run goes: launch and Describe (PL-01, PL-02); GetSchema three times and
// every declaration (PL-03..PL-13); Configure, first without each required
// attribute (PL-23), then with the whole configuration; for every
// operation, arguments generated from its own input_schema with rapid
// (PL-14..PL-21), arguments broken in one place (PL-18), a cancel
// mid-stream (PL-22) and Preview (PL-25); Render of what the plugin
// emitted (PL-26); generated payloads for every hook point it declares, in
// every mode (PL-27..PL-31); and, over all of it, the secret watch (PL-24).
// A failure found on generated input is shrunk to a minimal one, which the
// report shows.
//
// Resource operations are invoked only when Options.AllowEffects names a
// scratch folder, which every call gets as its working directory;
// otherwise their checks are not reached, and the report says so. A plugin
// that crashes is launched again for the next group of checks; the group it
// crashed in ends in error, naming what it did.
package pluginconform
