// Package hookgen generates hook payloads with rapid, one generator per
// hook point (the upstream pluggableharness.hook.v1 HookPayload variants),
// and judges a transform subscriber's answer against what it was given:
// the same variant, and nothing changed but the point's transform-mutable
// fields (only messages, at pre-model-call). It serves PL-27..PL-31.
package hookgen
