// Package model checks a model provider of the upstream pluggableharness
// ecosystem over the protocol it already speaks: launched through
// hashicorp/go-plugin with plugin key "model" (package launch), spoken to
// in gRPC (ModelService, and HookSubscriberService for the hook points it
// declares), served the kernel callback service. It is the engine of
// `conform plugin --category model` and gives a verdict on every row of the
// model-provider profile, MP-01..MP-35 in spec/requirements.json, through
// the kernel suite's report model, with the engine pieces every category
// shares (package kit: recorder, secret watch, rapid properties).
//
// A run goes: launch, Describe and GetCapabilities three times (MP-01..
// MP-03); every declaration (MP-04..MP-09, MP-27's and MP-28's declared
// parts, MP-34's); Configure without each required attribute, then with
// the whole configuration (MP-17); an unknown model (MP-14, MP-15); then,
// for every served model, generated text requests (rapid: words, stop
// sequences, output limits, assembled context; a failure is shrunk) judged
// on every stream rule (MP-10..MP-16, MP-23, MP-31, MP-32), tool calls and
// their round trip (MP-19, MP-20), each declared tool-choice mode (MP-27),
// parallel calls (MP-28), images and documents on and off (MP-21, MP-22),
// thinking at every declared level and at and past the budget range
// (MP-24, MP-25), cache breakpoints of every kind (MP-26), a cancel
// mid-stream (MP-33); pricing tiers at every boundary and at generated
// (timestamp, input tokens) pairs (MP-09); CountTokens (MP-30); Render of
// what the plugin emitted (MP-29); hook dispatch (MP-34); and, over all of
// it, the secret watch (MP-18). A model provider fronting a real vendor is
// pointed by its own configuration (--config) at a recorded or local
// backend: conform itself never dials anything but the plugin.
package model
