// Package model is conform's reference model provider (MP-01..MP-35): a
// deterministic echo model served through hashicorp/go-plugin that passes
// every MP requirement conform can observe, with no vendor behind it.
//
// It serves three models that between them exercise every optional
// capability: echo-1 (tools with every tool-choice mode and parallel
// calls, vision, documents, discrete-effort thinking with signatures,
// explicit cache markers, pricing tiered by time and by input size),
// batch-1 (a batch-only backend: continuous-budget thinking, implicit
// caching, no tools, images or documents) and free-1 (a free local model:
// tools without parallel calls, documents, no thinking, no caching). A
// model answers by echoing the last user text word by word (a word is a
// token), calls a tool when the tool choice or the text asks for one, and
// answers a tool result with "done". It implements CountTokens and Render,
// Emits a usage payload per completion, logs through the kernel callback
// service, and answers the pre-model-call and post-model-response hook
// points with refplugin's hook subscriber.
//
// Faults break one rule each; the mutants in refplugin/model/mutants set
// them, and conform must catch every one it can observe.
package model
