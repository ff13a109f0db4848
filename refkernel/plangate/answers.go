package plangate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentconform/conform/spec/wire"
)

// Lifetime is how long a frontend decision holds.
type Lifetime int

// Lifetimes of a decision.
const (
	// LifetimeOnce: this item only.
	LifetimeOnce Lifetime = iota
	// LifetimeSession: later items with the same provider and tool, for the
	// rest of the session, in memory only (PA-18).
	LifetimeSession
	// LifetimeAlways: stored as policy for later sessions of the profile,
	// and for the rest of this one (PA-19).
	LifetimeAlways
	// LifetimeRefused: the kernel cannot honour the scope; the decision is
	// refused with an error and the item stays pending (PA-19).
	LifetimeRefused
)

// Answers is the swappable part that interprets a frontend's decision: what
// its scope means and whether a corrected input may be used.
type Answers interface {
	// Lifetime maps a decision's scope to how long it holds; persist says
	// whether the kernel has a writable policy store.
	Lifetime(scope string, persist bool) Lifetime
	// CheckCorrection validates a corrected_input against the tool's
	// input_schema; an error refuses the decision (PA-17).
	CheckCorrection(inputSchema map[string]any, input json.RawMessage) error
}

// StandardAnswers is the reference interpretation.
type StandardAnswers struct{}

// Lifetime implements Answers: an absent scope is ONCE (the frontend's
// default), ALWAYS without a store is refused, never quietly shortened, and
// an unknown scope is refused too.
func (StandardAnswers) Lifetime(scope string, persist bool) Lifetime {
	switch scope {
	case "", wire.ScopeOnce:
		return LifetimeOnce
	case wire.ScopeSession:
		return LifetimeSession
	case wire.ScopeAlways:
		if persist {
			return LifetimeAlways
		}
	}
	return LifetimeRefused
}

// CheckCorrection implements Answers: the corrected input must be JSON and
// valid against the tool's input_schema as declared; nothing is coerced. A
// tool without an input_schema accepts any JSON object.
func (StandardAnswers) CheckCorrection(inputSchema map[string]any, input json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return fmt.Errorf("corrected_input is not JSON: %w", err)
	}
	if inputSchema == nil {
		if _, ok := inst.(map[string]any); !ok {
			return errors.New("corrected_input is not a JSON object")
		}
		return nil
	}
	raw, err := json.Marshal(inputSchema)
	if err != nil {
		return fmt.Errorf("the tool's input_schema cannot be encoded: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	const url = "mem://input_schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Errorf("the tool's input_schema is unusable: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("the tool's input_schema is unusable: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("corrected_input does not match the tool's input_schema: %v", err)
	}
	return nil
}
