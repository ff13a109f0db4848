// Package refplugin is conform's reference plugin for the plugin profile
// (PL-01..PL-31): a tool provider and hook subscriber written with
// hashicorp/go-plugin that passes every PL requirement conform can observe.
//
// Its operations cover each kind the protocol knows: lookup (a
// non-streaming data_source), search (a streaming data_source with
// partial results), write_note (a resource with Preview, an emitted event
// and Render), ask (an interactive operation) and exec (a process-backed
// resource that streams its child's output and reports exit_status). Its
// HookSubscriberService answers all eight hook points in every mode.
//
// Faults are knobs that break one rule each; the plugin mutants in
// refplugin/mutants set them, and conform must catch every one it can
// observe. The zero Faults is the reference plugin.
package refplugin
