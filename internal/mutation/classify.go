package mutation

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Class is why a surviving mutant is accepted.
type Class string

const (
	// Equivalent: the mutated program behaves exactly as the original for
	// every input (a capacity hint, a bound that is checked again later,
	// a loop over a list that has at most one element by construction).
	Equivalent Class = "equivalent"
	// NotObservable: the mutant changes behaviour, but nothing
	// conform.wire/v1 carries can show it. Clause names the clause of the
	// specification it would break.
	NotObservable Class = "not_observable"
	// OpenReading: the mutant moves the kernel from one reading the
	// specification leaves open to another that is also conforming. Clause
	// names the open point (e.g. "A-07").
	OpenReading Class = "open_reading"
	// LegalVariant: the mutant is a correct kernel that says what it
	// does: the mutated value feeds both its behaviour and a reading or
	// default it declares at initialize (a default threshold of 4 declared
	// as 4). Legal variants must pass, so a suite that killed it would be
	// wrong; it leaves the denominator like an equivalent. Clause names
	// the declaration that moves with it.
	LegalVariant Class = "legal_variant"
	// NeedsCheck is not an acceptance: the survivor shows a hole in the
	// suite. Clause names the requirement it breaks and Reason the
	// scenario or property that would kill it. It stays a survivor against
	// the target until that check exists, and its entry then goes stale.
	NeedsCheck Class = "needs_check"
)

// Classification is one reviewed survivor.
type Classification struct {
	Key    string `json:"key"`
	Class  Class  `json:"class"`
	Clause string `json:"clause,omitempty"`
	Reason string `json:"reason"`
}

// Classifications is the committed list of reviewed survivors.
type Classifications struct {
	Survivors []Classification `json:"survivors"`
}

// LoadClassifications reads and checks the committed list; a missing file
// is an empty list.
func LoadClassifications(path string) (map[string]Classification, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Classification{}, nil
	}
	if err != nil {
		return nil, err
	}
	var list Classifications
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]Classification{}
	for i, c := range list.Survivors {
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("%s: entry %d (%s): %w", path, i+1, c.Key, err)
		}
		if _, dup := out[c.Key]; dup {
			return nil, fmt.Errorf("%s: entry %d: key %q listed twice", path, i+1, c.Key)
		}
		out[c.Key] = c
	}
	return out, nil
}

func (c Classification) check() error {
	switch {
	case c.Key == "":
		return errors.New("no key")
	case strings.TrimSpace(c.Reason) == "":
		return errors.New("no reason")
	}
	switch c.Class {
	case Equivalent:
		return nil
	case NotObservable, OpenReading, LegalVariant, NeedsCheck:
		if strings.TrimSpace(c.Clause) == "" {
			return fmt.Errorf("class %s must name the clause", c.Class)
		}
		return nil
	}
	return fmt.Errorf("unknown class %q (equivalent, legal_variant, not_observable, open_reading or needs_check)", c.Class)
}
