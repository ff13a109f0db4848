// Package contextprov checks a context provider of the upstream
// pluggableharness ecosystem over the protocol it already speaks:
// launched through hashicorp/go-plugin under plugin key "context",
// spoken to in gRPC (ContextService), served the kernel callback service
// (CountTokens answers are recorded, so a section's tokens can be traced
// to one). It is the engine of `conform plugin --category context` and
// gives a verdict on every row of the context-provider profile, CP-01..
// CP-32 in spec/requirements.json, through the kernel suite's report
// model.
//
// A run goes: launch, Describe and GetCapabilities three times (CP-01,
// CP-02, CP-05); the declarations (CP-03, CP-04, CP-06, CP-31); Configure
// without each required attribute (CP-07) and with each source attribute
// pointed at nothing (CP-08), then with the whole configuration — a
// source attribute the user leaves unset is pointed at a file conform
// writes, with an HTML comment and front matter in it (CP-19); Contribute
// on generated requests (rapid; a failure is shrunk): prior sections of
// other providers, budgets at, below and far below the declared default,
// files_touched, conversation history for a compactor only, each asked
// twice per session (CP-09..CP-18, CP-20..CP-23), and a static
// provider's answers under a small budget again under a far larger one
// (CP-32: a section cut down to fit says truncated); malformed requests
// and a source removed after Configure (CP-27); Render of a section and
// of two payloads the plugin never emitted (CP-30); and over all
// of it the error taxonomy (CP-24..CP-26) and the secret watch (CP-28).
//
// What the context documents oblige the kernel to do is not a plugin row:
// computing history_tokens and assembled_tokens_last_turn on every
// firing, sending conversation_history to a compactor only, applying
// rewritten_history, rejecting non-text content, validating each
// section's tokens against its budget and dropping a violator without
// failing the turn, never truncating content itself, discarding a
// non-compactor's response that touches another's section, wrapping each
// section in a delimited boundary by its label, firing context-assemble
// at least once per turn, the reactions to each error category, and the
// config-load budget-sum and stability-order warnings. conform keeps the
// ones that shape a request (it plays the kernel); the rest belong to a
// kernel's own checks.
package contextprov
