package main

import "github.com/agentconform/conform/spec/wire"

// glue names the requirements whose verdict depends on this adapter's glue,
// not on Genkit (PROTOCOL.md §15): reports label them glue and count their
// failures apart. Each reason says what the glue does and whether Genkit
// could.
var glue = []wire.GlueNote{
	{Requirement: "TA-25", Reason: "pricing is the glue's (the kit's Charge): Genkit has no pricing, and the glue checks no tiers when a session starts"},
	{Requirement: "HD-16", Reason: "hook configuration is the glue's (the kit's Dispatch): Genkit has no hook plugins to list supported points, and the glue checks none when a session starts"},
	{Requirement: "HD-13", Reason: "the hook chains are dispatched by the kit's Dispatch from Genkit's model middleware and the glue's tool function, and it makes no hook_dispatch or hook_subscriber span; Genkit's tracing.RunInNewSpan could carry them"},
	{Requirement: "TA-17", Reason: "Genkit's own spans cover each loop iteration, model call and tool (exported by the glue); the plan-ready chain is the glue's (Genkit has no policy) and the glue does not trace it, though tracing.RunInNewSpan could"},
	{Requirement: "PA-03", Reason: "the policy table and the denial text are the glue's: Genkit has no policy; a denied call is answered by the glue's tool function without running"},
	{Requirement: "PA-04", Reason: "plan mode would be the glue's: Genkit has no per-call tool switch (Generate offers every tool of WithTools), and the glue passes the resource tools in plan mode too, though it could leave them out"},
	{Requirement: "PA-06", Reason: "the read/interactive precheck is the glue's policy table: Genkit has no policy"},
	{Requirement: "PA-09", Reason: "the downgrade and its ask_downgrade event are the glue's: Genkit has no policy"},
	{Requirement: "PA-10", Reason: "the default by kind is the glue's policy table: Genkit has no policy"},
	{Requirement: "PA-14", Reason: "the plan_item rows are written by the glue's model middleware: Genkit has no plan"},
	{Requirement: "HD-12", Reason: "the plan_item rows and their decided_by are the glue's: Genkit has no plan"},
}
