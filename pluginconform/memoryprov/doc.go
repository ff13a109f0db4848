// Package memoryprov checks a memory provider of the upstream
// pluggableharness ecosystem over the protocol it already speaks:
// launched through hashicorp/go-plugin under plugin key "memory", spoken
// to in gRPC (MemoryService, and HookSubscriberService and ToolService
// where it serves them), served the kernel callback service (CountTokens
// answers are recorded). It is the engine of `conform plugin --category
// memory` and gives a verdict on every row of the memory-provider
// profile, MM-01..MM-47 in spec/requirements.json.
//
// A run goes: launch, Describe and GetCapabilities (MM-01, MM-02); the
// declarations (MM-03..MM-06, MM-46); Configure without each required
// attribute (MM-07), then with the whole configuration; generated writes
// (rapid; a failure is shrunk): Record of every supported type and scope
// and of unsupported or missing ones, with and without a suggested id,
// with titles that have no letter to derive an id from, with content in
// one or several text blocks, with dangling [[links]], each followed by
// GetRecord, UpdateRecord (with or without a new title), GetRecord again
// and sometimes DeleteRecord, and, under ratification, Recall before
// approval and ApproveRecord or RejectRecord (MM-09..MM-19, MM-23, MM-26,
// MM-27, MM-29, MM-32..MM-34, MM-36, MM-37); unknown ids (MM-14, MM-15,
// MM-18; approved or rejected under ratification, MM-47); ListRecords in
// pages of 2, without a page size, and filtered (MM-20..MM-22); Recall at
// budgets from generous to tiny and filtered (MM-24..MM-28); two project
// records of different age under a budget for one (MM-31); ratification
// against a provider without it (MM-35); Render of a record, of a payload
// that does not decode and of an empty one (the plugin must answer and
// live on), ToolService in the same process, DispatchHook at
// post_model_response and session_end (MM-41, MM-44, MM-45); and over all
// of it the error taxonomy (MM-38..MM-40) and the secret watch (MM-08).
//
// What the memory documents oblige the kernel to do is not a plugin row:
// populating provenance at Record time, parsing [[name]] into links and
// resolving them to link nodes when rendering, keeping dangling links
// queryable, enforcing unique slugs with numeric suffixes, translating
// Recall results into context sections in the shared budget pool, and
// the reactions to each error category. conform keeps the ones that shape
// a request (it plays the kernel: model_target and a ULID turn_id are
// always set, include_pending is false unless it says otherwise).
package memoryprov
