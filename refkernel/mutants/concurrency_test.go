package mutants

import (
	"context"
	"encoding/json"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/schedule"
	"github.com/agentconform/conform/spec/wire"
)

// Mutants of turn-level tool-call concurrency: the scheduler (steps 9, 9b
// and 12) and the concurrency keys it is given.
func init() {
	register(
		Mutant{Name: "schedule/ignore-conflicts", Targets: []string{"TA-15", "TA-16", "TA-29"},
			Breaks: "every call of a group runs at once, whatever its key: same keys and provider locks overlap",
			Apply: func(p loop.Parts) loop.Parts {
				p.Scheduler = rekeyed{func(k schedule.Key, i int) schedule.Key {
					return schedule.Key{Provider: k.Provider, Slot: ""} // a key of its own
				}}
				return p
			}},
		Mutant{Name: "schedule/serialize-everything", Targets: []string{"TA-14", "TA-16"},
			Breaks: "every group runs one call at a time: safe reads and distinct keys never overlap",
			Apply: func(p loop.Parts) loop.Parts {
				p.Scheduler = serialScheduler{}
				return p
			}},
		Mutant{Name: "schedule/parallel-capability-ignored", Targets: []string{"TA-30"},
			Breaks: "a model without supports_parallel_tool_calls still gets its calls run concurrently",
			Apply: func(p loop.Parts) loop.Parts {
				p.Scheduler = parallelScheduler{}
				return p
			}},
		Mutant{Name: "keys/key-fields-ignored", Targets: []string{"TA-16"},
			Breaks: "a safe operation's key_fields are ignored: calls with the same key value overlap",
			Apply: func(p loop.Parts) loop.Parts {
				p.Keys = keyFunc(func(s wire.ToolSchema, in json.RawMessage) schedule.Key {
					if s.Concurrency != nil && s.Concurrency.Safe {
						s.Concurrency = &wire.ConcurrencySpec{Safe: true}
					}
					return schedule.StandardKeys{}.Key(s, in)
				})
				return p
			}},
		Mutant{Name: "keys/by-kind", Targets: []string{"TA-16", "TA-29"},
			Breaks: "keys follow the kind, not the ConcurrencySpec: reads always overlap, resources always lock their provider",
			Apply: func(p loop.Parts) loop.Parts {
				p.Keys = keyFunc(func(s wire.ToolSchema, in json.RawMessage) schedule.Key {
					switch s.Kind {
					case wire.KindDataSource:
						return schedule.Key{Provider: s.Provider}
					case wire.KindResource:
						return schedule.Key{Provider: s.Provider, Exclusive: true}
					}
					return schedule.StandardKeys{}.Key(s, in)
				})
				return p
			}},
		Mutant{Name: "keys/undeclared-is-safe", Targets: []string{"TA-15", "TA-29"},
			Breaks: "an operation without a ConcurrencySpec is treated as safe with no key fields",
			Apply: func(p loop.Parts) loop.Parts {
				p.Keys = keyFunc(func(s wire.ToolSchema, in json.RawMessage) schedule.Key {
					if s.Concurrency == nil {
						s.Concurrency = &wire.ConcurrencySpec{Safe: true}
					}
					return schedule.StandardKeys{}.Key(s, in)
				})
				return p
			}},
		Mutant{Name: "keys/resources-concurrent", Targets: []string{"TA-15"},
			Breaks: "resource calls never conflict: undeclared resources run concurrently",
			Apply: func(p loop.Parts) loop.Parts {
				p.Keys = keyFunc(func(s wire.ToolSchema, in json.RawMessage) schedule.Key {
					if s.Kind == wire.KindResource {
						return schedule.Key{Provider: s.Provider}
					}
					return schedule.StandardKeys{}.Key(s, in)
				})
				return p
			}},
		Mutant{Name: "keys/unsafe-locks-tool-only", Targets: []string{"TA-29"},
			Breaks: "an unsafe or undeclared operation locks only its own tool, not its whole provider",
			Apply: func(p loop.Parts) loop.Parts {
				p.Keys = keyFunc(func(s wire.ToolSchema, in json.RawMessage) schedule.Key {
					k := schedule.StandardKeys{}.Key(s, in)
					if k.Exclusive && s.Kind != wire.KindInteractive {
						k.Provider += "\x00" + s.Name
					}
					return k
				})
				return p
			}},
		Mutant{Name: "keys/one-global-lock", Targets: []string{"TA-16"},
			Breaks: "an unsafe or undeclared operation locks every provider, not just its own",
			Apply: func(p loop.Parts) loop.Parts {
				p.Keys = keyFunc(func(s wire.ToolSchema, in json.RawMessage) schedule.Key {
					k := schedule.StandardKeys{}.Key(s, in)
					if k.Exclusive && s.Kind != wire.KindInteractive {
						k.Provider = "global"
					}
					return k
				})
				return p
			}},
		Mutant{Name: "keys/interactive-honours-concurrency-spec", Targets: []string{"TA-28"},
			Breaks: "an interactive operation's (forbidden) ConcurrencySpec is honoured: declared safe, its calls overlap",
			Apply: func(p loop.Parts) loop.Parts {
				p.Keys = keyFunc(func(s wire.ToolSchema, in json.RawMessage) schedule.Key {
					if s.Kind == wire.KindInteractive && s.Concurrency != nil {
						return schedule.KeyOf(s, in)
					}
					return schedule.StandardKeys{}.Key(s, in)
				})
				return p
			}},
		Mutant{Name: "keys/interactive-concurrent", Targets: []string{"PA-07", "TA-28"},
			Breaks: "interactive calls never conflict: all interactive requests of a message go out at once",
			Apply: func(p loop.Parts) loop.Parts {
				p.Keys = keyFunc(func(s wire.ToolSchema, in json.RawMessage) schedule.Key {
					if s.Kind == wire.KindInteractive {
						return schedule.Key{Provider: "ui"}
					}
					return schedule.StandardKeys{}.Key(s, in)
				})
				return p
			}},
	)
}

// keyFunc adapts a function to schedule.Keyer.
type keyFunc func(s wire.ToolSchema, in json.RawMessage) schedule.Key

func (f keyFunc) Key(s wire.ToolSchema, in json.RawMessage) schedule.Key { return f(s, in) }

// rekeyed rewrites every job's key before the reference scheduler sees it.
type rekeyed struct {
	f func(k schedule.Key, i int) schedule.Key
}

func (r rekeyed) Run(ctx context.Context, jobs []schedule.Job, parallel bool) {
	out := make([]schedule.Job, len(jobs))
	for i, j := range jobs {
		out[i] = schedule.Job{Key: r.f(j.Key, i), Run: j.Run}
	}
	schedule.Standard{}.Run(ctx, out, parallel)
}

type serialScheduler struct{}

func (serialScheduler) Run(ctx context.Context, jobs []schedule.Job, _ bool) {
	schedule.Standard{}.Run(ctx, jobs, false)
}

type parallelScheduler struct{}

func (parallelScheduler) Run(ctx context.Context, jobs []schedule.Job, _ bool) {
	schedule.Standard{}.Run(ctx, jobs, true)
}
