package mutants

import (
	"encoding/json"
	"time"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/schedule"
	"github.com/agentconform/conform/spec/wire"
)

// Legal variants of the turn area: other readings of A-06 (the doom-loop
// ending's status), A-15 (undeclared reads) and A-09 (when the session clock
// starts). Each must pass every requirement.
func init() {
	for _, st := range []string{wire.StatusErrorMaxBudgetUSD, wire.StatusErrorMaxWallClock, wire.StatusCompleted} {
		registerVariant(Variant{
			Name:    "doomloop/status-" + st,
			Reading: "A-06: the doom-loop ending has no status of its own; this kernel reports " + st + " and declares it (doom_loop.status)" + completedNote(st),
			Apply: func(p loop.Parts) loop.Parts {
				p.DoomLoop = doomloop.Standard{EndStatus: st}
				return p
			},
			Tags: "@TA-08,@TA-12,@TA-13,@TA-26",
		})
	}
	registerVariant(
		Variant{Name: "concurrency/undeclared-reads-concurrent",
			Reading: "A-15: undeclared data_source operations run concurrently (the matrix row), declared as concurrency.undeclared_data_source = concurrent",
			Apply:   undeclaredReadsConcurrent,
			Options: []refkernel.Option{refkernel.WithDeclaration(func(r *wire.InitializeResult) {
				r.Readings[readingUndeclaredReads] = "concurrent"
			})},
			Tags: "@TA-14,@TA-15,@TA-16,@TA-28,@TA-29,@TA-30",
		},
		Variant{Name: "concurrency/undeclared-reads-concurrent-undeclared",
			Reading: "A-15: undeclared data_source operations run concurrently, and the kernel declares no reading: only recorded",
			Apply:   undeclaredReadsConcurrent,
			Options: []refkernel.Option{withoutReadings(readingUndeclaredReads)},
			Tags:    "@TA-14,@TA-15,@TA-16,@TA-28,@TA-29,@TA-30",
		},
		Variant{Name: "doomloop/model-check-counts-undeclared",
			Reading: "TA-13: the kernel declares no doom_loop.model_check_counts; the checks accept any counting (relevant calls, every call, turns) and this one counts relevant calls",
			Options: []refkernel.Option{withoutReadings("doom_loop.model_check_counts")},
			Tags:    "@TA-13",
		},
		Variant{Name: "bounds/session-clock-starts-200ms-late",
			Reading: "A-09: the kernel starts its wall clock 200 ms after session/run arrived (setup before timing), and reports that start in session_meta",
			Options: []refkernel.Option{refkernel.WithClockStartDelay(200 * time.Millisecond)},
			Tags:    "@TA-04,@TA-19",
		},
	)
}

// readingUndeclaredReads is A-15's reading key (PROTOCOL.md §15).
const readingUndeclaredReads = "concurrency.undeclared_data_source"

func completedNote(st string) string {
	if st == wire.StatusCompleted {
		return "; the suite records it as suspicious (an observation), never as a failure"
	}
	return ""
}

// undeclaredReadsConcurrent keys an undeclared data_source as safe with no
// key fields; everything else keeps the reference keys.
func undeclaredReadsConcurrent(p loop.Parts) loop.Parts {
	p.Keys = keyFunc(func(s wire.ToolSchema, in json.RawMessage) schedule.Key {
		if s.Kind == wire.KindDataSource && s.Concurrency == nil {
			s.Concurrency = &wire.ConcurrencySpec{Safe: true}
		}
		return schedule.StandardKeys{}.Key(s, in)
	})
	return p
}
