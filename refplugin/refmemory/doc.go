// Package refmemory is conform's reference memory provider, served as a
// go-plugin "memory" plugin beside a HookSubscriberService (the
// autonomous write triggers) and a ToolService advertising the memory
// tools, passing every MM row conform can observe. Records live in memory
// (a plugin process is one store); tokens come from the kernel's
// CountTokens callback — without a model at write time, with the request's
// model_target at Recall; Recall ranks newest first and fills the budget
// greedily. With Ratify set it declares ratification: every write is a
// pending draft until ApproveRecord.
//
// It supports three of the four types and two of the three scopes, so
// conform's unsupported-type and unsupported-scope cases have something to
// refuse. Faults break one rule each; refmemory/mutants sets them.
package refmemory
