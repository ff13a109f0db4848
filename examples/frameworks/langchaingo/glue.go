package main

import "github.com/agentconform/conform/spec/wire"

// glue names the requirements whose verdict depends on this adapter's glue,
// not on langchaingo (PROTOCOL.md §15): reports label them glue and count
// their failures apart. Each reason says what the glue does (or does not)
// and whether langchaingo could.
var glue = []wire.GlueNote{
	{Requirement: "TA-25", Reason: "pricing is the glue's (the kit's Charge): langchaingo has no pricing, and the glue checks no tiers when a session starts"},
	{Requirement: "HD-16", Reason: "hook configuration is the glue's (the kit's Dispatch): langchaingo has no hook plugins listing supported points, and the glue checks none when a session starts"},
	{Requirement: "HD-13", Reason: "the hook chains are dispatched by the kit's Dispatch from langchaingo's callbacks, and it makes no hook_dispatch or hook_subscriber span; langchaingo has no tracing of its own"},
	{Requirement: "PA-03", Reason: "a denial would be the glue's: langchaingo has no policy or approval, and the glue's tool wrapper implements no policy table (it could, as the Genkit adapter's does)"},
	{Requirement: "PA-04", Reason: "plan mode would be the glue's: langchaingo has no per-call tool switch (the agent offers every tool it is given), and the glue passes the resource tools in plan mode too, though it could leave them out"},
	{Requirement: "PA-06", Reason: "the read/interactive precheck would be a policy table in the glue: langchaingo has none, and the glue implements none (it could)"},
	{Requirement: "PA-09", Reason: "the downgrade of an ask would be the glue's policy table: langchaingo has none, and the glue implements none (it could)"},
	{Requirement: "PA-10", Reason: "the default by kind would be the glue's policy table: langchaingo has none, and the glue implements none (it could)"},
	{Requirement: "PA-14", Reason: "plan_item rows would be events the glue writes: langchaingo has no plan, and the glue writes none (it could, from the executor's tool calls)"},
	{Requirement: "HD-12", Reason: "plan_item rows and their decided_by would be the glue's: langchaingo has no plan, and the glue writes none"},
}
