package spec

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"sync"
)

// The clause map (issue 29) splits requirements into clauses: each field a
// requirement gives meaning to, each condition, each ordering. For every
// clause it names the checks (step text) that prove its value and the
// scenarios where each side of each condition occurs, in a root session
// and, for a clause that holds in every session, in a child of a tree. A
// clause whose proof is incomplete says so in its gap, never by pretending:
// harness/conformtest's TestReferenceKernel (its clause map subtest) holds the map against a run of the
// reference kernel and keeps the gaps to a committed allow-list that can
// only shrink; reports/clauses.md is its coverage.

//go:embed clauses.json
var clausesJSON []byte

// ClausesSchema is the JSON Schema of clauses.json.
//
//go:embed clauses.schema.json
var ClausesSchema []byte

// ClausesJSON is the embedded clause map, as written.
func ClausesJSON() []byte { return clausesJSON }

// ClauseMap is the parsed clause map.
type ClauseMap struct {
	Version int `json:"version"`
	// Areas are the requirement areas mapped so far: every requirement of
	// one has at least one clause.
	Areas   []string `json:"areas"`
	Clauses []Clause `json:"clauses"`
}

// Clause kinds.
const (
	ClauseValue     = "value"     // a field or quantity must hold a value
	ClauseCondition = "condition" // behaviour that depends on a condition: two sides at least
	ClauseOrdering  = "ordering"  // one thing before another
)

// Clause is one part of a requirement that can be right or wrong on its
// own.
type Clause struct {
	ID          string `json:"id"` // "ER-01.jitter"
	Requirement string `json:"requirement"`
	Kind        string `json:"kind"`
	Says        string `json:"says"`
	// PerSession marks a clause that holds in every session of a tree, so
	// Tree must show it checked in a child or grandchild.
	PerSession bool   `json:"per_session,omitempty"`
	Sides      []Side `json:"sides"`
	Tree       *Side  `json:"tree,omitempty"`
	// Gap says what is missing from the proof; a clause with a gap is
	// incomplete on purpose and on the allow-list.
	Gap string `json:"gap,omitempty"`
	// Announced marks a clause whose check reads the property from an
	// event the kernel chooses to send.
	Announced *Announced `json:"announced,omitempty"`
}

// Side is one side of a condition (or the one case of a value or an
// ordering): the checks that judge it and the scenarios where it occurs.
type Side struct {
	When string `json:"when"`
	// Checks are substrings of the step texts of the checks that prove
	// the clause's requirement on this side.
	Checks    []string `json:"checks"`
	Scenarios []string `json:"scenarios"`
}

// Announced says what a check reads from the kernel's own event and what
// it concludes when the kernel sends nothing.
type Announced struct {
	Reads   string `json:"reads"`
	Without string `json:"without"`
}

var clauseID = regexp.MustCompile(`^((TA|HD|PA|SA|ER|DF|PL)-\d{2})\.[a-z0-9][a-z0-9-]*$`)

var (
	clausesOnce sync.Once
	clauses     *ClauseMap
	clausesErr  error
)

// LoadClauses parses and validates the embedded clause map against the
// catalog: unique IDs named after their requirement, known kinds, a known
// requirement, a condition with two sides at least.
func LoadClauses() (*ClauseMap, error) {
	clausesOnce.Do(func() {
		clauses, clausesErr = ParseClauses(clausesJSON)
		if clausesErr != nil {
			clausesErr = fmt.Errorf("embedded clauses.json: %w", clausesErr)
		}
	})
	return clauses, clausesErr
}

// ParseClauses decodes and validates a clause map, reporting every defect.
func ParseClauses(data []byte) (*ClauseMap, error) {
	var m ClauseMap
	if err := decodeStrict(data, &m); err != nil {
		return nil, fmt.Errorf("clause map: %w", err)
	}
	cat, err := LoadAll()
	if err != nil {
		return nil, err
	}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if m.Version != 1 {
		fail("clause map: unsupported version %d", m.Version)
	}
	seen := map[string]bool{}
	for i, c := range m.Clauses {
		sub := clauseID.FindStringSubmatch(c.ID)
		switch {
		case sub == nil:
			fail("clause %d: id %q is not REQ-NN.name", i, c.ID)
		case sub[1] != c.Requirement:
			fail("clause %s: its id names %s, its requirement is %s", c.ID, sub[1], c.Requirement)
		case seen[c.ID]:
			fail("clause %s: id used twice", c.ID)
		}
		seen[c.ID] = true
		if _, ok := cat.Get(c.Requirement); !ok {
			fail("clause %s: unknown requirement %s", c.ID, c.Requirement)
		}
		if c.Says == "" {
			fail("clause %s: says nothing", c.ID)
		}
		switch c.Kind {
		case ClauseValue, ClauseOrdering:
			if len(c.Sides) != 1 {
				fail("clause %s: a %s clause has one side, not %d", c.ID, c.Kind, len(c.Sides))
			}
		case ClauseCondition:
			if len(c.Sides) < 2 {
				fail("clause %s: a condition has two sides at least, it names %d", c.ID, len(c.Sides))
			}
		default:
			fail("clause %s: unknown kind %q", c.ID, c.Kind)
		}
		if c.Tree != nil && !c.PerSession {
			fail("clause %s: a tree side belongs to a per-session clause", c.ID)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &m, nil
}
