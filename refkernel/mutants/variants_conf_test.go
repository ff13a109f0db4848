package mutants

import (
	"encoding/json"
	"errors"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// Legal variants of the config-value readings (PROTOCOL.md §15): a kernel
// that declares none of bound.zero, hooks.zero_timeout and
// doom_loop.number_identity is asserted nothing about those values; one
// that compares numbers by value (RFC 8785, A-04) and says so passes, and so
// does one that refuses a hook timeout of 0 and says so.
func init() {
	registerVariant(
		Variant{Name: "config/zero-readings-undeclared",
			Reading: "bound.zero, hooks.zero_timeout and doom_loop.number_identity left out: the scenarios that hold a kernel to them are skipped, nothing is asserted about a bound of 0, a hook timeout of 0 or numbers written differently",
			Options: []refkernel.Option{withoutReadings("bound.zero", "hooks.zero_timeout", "doom_loop.number_identity")},
			Tags:    "@TA-02,@TA-03,@TA-04,@TA-05,@HD-05,@TA-12",
		},
		Variant{Name: "doomloop/numbers-by-value",
			Reading: "A-04: the doom-loop hash compares numbers by value, as RFC 8785 does (1.5, 1.50 and 15e-1 are one input), declared as doom_loop.number_identity = value",
			Apply: func(p loop.Parts) loop.Parts {
				p.DoomLoop = numbersByValue{doomloop.Standard{}}
				return p
			},
			Options: []refkernel.Option{refkernel.WithDeclaration(func(r *wire.InitializeResult) {
				r.Readings["doom_loop.number_identity"] = "value"
			})},
			Tags: "@TA-12,@TA-26",
		},
		Variant{Name: "hooks/zero-timeout-refused",
			Reading: "A-24: a hooks.default_timeout_ms of 0 is a value the kernel cannot honour and refuses (-32001), declared as hooks.zero_timeout = refused",
			Apply: func(p loop.Parts) loop.Parts {
				p.Hooks = zeroTimeoutRefused{p.Hooks}
				return p
			},
			Options: []refkernel.Option{refkernel.WithDeclaration(func(r *wire.InitializeResult) {
				r.Readings["hooks.zero_timeout"] = "refused"
			})},
			Tags: "@HD-05,@HD-16",
		},
	)
}

// zeroTimeoutRefused refuses hooks.default_timeout_ms 0 at load.
type zeroTimeoutRefused struct{ hooks.Dispatcher }

func (d zeroTimeoutRefused) Validate(h wire.Hooks) error {
	if h.DefaultTimeoutMS == 0 {
		return errors.New("hooks.default_timeout_ms 0: this kernel needs a deadline")
	}
	return d.Dispatcher.Validate(h)
}

// numbersByValue hashes an input after reading its numbers as float64, so
// two spellings of one value collide; what is not JSON is hashed as is.
type numbersByValue struct{ doomloop.Standard }

func (d numbersByValue) Hash(tool string, input json.RawMessage) string {
	var v any
	if json.Unmarshal(input, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			input = b
		}
	}
	return d.Standard.Hash(tool, input)
}
