package schedule

import (
	"encoding/json"
	"strings"

	"github.com/agentconform/conform/refkernel/internal/canon"
	"github.com/agentconform/conform/spec/wire"
)

// Key is a call's concurrency key.
type Key struct {
	Provider string
	// Exclusive is the provider-wide lock of an unsafe operation.
	Exclusive bool
	// Slot is tool plus key_fields values for a safe operation; empty means
	// a key of its own, conflicting with no other safe call.
	Slot string
}

// KeyOf computes the key of one call from its tool's declaration.
func KeyOf(s wire.ToolSchema, input json.RawMessage) Key {
	if s.Concurrency == nil || !s.Concurrency.Safe {
		return Key{Provider: s.Provider, Exclusive: true}
	}
	if len(s.Concurrency.KeyFields) == 0 {
		return Key{Provider: s.Provider}
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(input, &obj) // not an object: every field reads as null
	parts := []string{s.Name}
	for _, f := range s.Concurrency.KeyFields {
		v, err := canon.JSON(obj[f])
		if err != nil {
			v = obj[f]
		}
		parts = append(parts, string(v))
	}
	// NUL cannot appear in canonical JSON, so it separates unambiguously.
	return Key{Provider: s.Provider, Slot: strings.Join(parts, "\x00")}
}

// Conflicts reports whether two calls must not run at the same time.
func (k Key) Conflicts(o Key) bool {
	if k.Provider != o.Provider {
		return false
	}
	return k.Exclusive || o.Exclusive || (k.Slot != "" && k.Slot == o.Slot)
}

// Keyer is the swappable part that gives each call its key.
type Keyer interface {
	Key(s wire.ToolSchema, input json.RawMessage) Key
}

// interactiveProvider is the pseudo provider all interactive calls share:
// one human answers them, so they form one exclusive lock whatever their
// providers are.
const interactiveProvider = "\x00interactive"

// InteractiveKey is the key of every interactive call.
var InteractiveKey = Key{Provider: interactiveProvider, Exclusive: true}

// StandardKeys is the reference Keyer: KeyOf for data_source and resource
// calls; one shared exclusive key for interactive calls, whose
// ConcurrencySpec, if any, is ignored (TA-28, PA-07).
type StandardKeys struct{}

// Key implements Keyer.
func (StandardKeys) Key(s wire.ToolSchema, input json.RawMessage) Key {
	if s.Kind == wire.KindInteractive {
		return InteractiveKey
	}
	return KeyOf(s, input)
}
