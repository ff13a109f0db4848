package dfirst

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/agentconform/conform/spec/wire"
)

// Evaluator decides whether a requires list holds on the memory as it is.
// It is the part a gate and a skill's eligibility rest on (DF-02, DF-04,
// DF-06).
type Evaluator interface {
	Holds(conds []wire.DFCondition, mem map[string]json.RawMessage) bool
}

// FailClosed is the reference evaluator: a list holds only when every
// clause evaluates to true. A clause on a key that was never written, or
// whose comparison cannot be made, is unevaluable, and an unevaluable
// clause never holds, whatever its operator (DF-04).
type FailClosed struct{}

// Holds implements Evaluator.
func (FailClosed) Holds(conds []wire.DFCondition, mem map[string]json.RawMessage) bool {
	for _, c := range conds {
		ok, err := Eval(c, mem)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// ErrUnset is the evaluation of a clause whose key memory does not hold.
var ErrUnset = errors.New("the key was never written")

// Eval evaluates one clause. The error says why it cannot be evaluated: an
// unset key (ErrUnset), a missing value, an unknown operator, or values
// that do not compare.
func Eval(c wire.DFCondition, mem map[string]json.RawMessage) (bool, error) {
	raw, ok := mem[c.Key]
	if !ok {
		return false, ErrUnset
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, fmt.Errorf("memory %q is not JSON: %w", c.Key, err)
	}
	op := c.Op
	if op == "" {
		op = wire.OpTruthy
	}
	if op == wire.OpTruthy {
		return Truthy(v), nil
	}
	if len(bytes.TrimSpace(c.Value)) == 0 {
		return false, fmt.Errorf("operator %q needs a value", op)
	}
	var w any
	if err := json.Unmarshal(c.Value, &w); err != nil {
		return false, fmt.Errorf("the value of a %q clause is not JSON: %w", op, err)
	}
	switch op {
	case wire.OpEq:
		return equal(v, w), nil
	case wire.OpNe:
		return !equal(v, w), nil
	case wire.OpGt, wire.OpGe, wire.OpLt, wire.OpLe:
		cmp, err := compare(v, w)
		if err != nil {
			return false, err
		}
		switch op {
		case wire.OpGt:
			return cmp > 0, nil
		case wire.OpGe:
			return cmp >= 0, nil
		case wire.OpLt:
			return cmp < 0, nil
		default:
			return cmp <= 0, nil
		}
	}
	return false, fmt.Errorf("unknown operator %q", op)
}

// Truthy is the boolean reading of a JSON value: null, false, 0, "", []
// and {} are false, everything else is true.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

// compare orders two numbers or two strings; anything else cannot be
// compared.
func compare(a, b any) (int, error) {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			switch {
			case x < y:
				return -1, nil
			case x > y:
				return 1, nil
			}
			return 0, nil
		}
	case string:
		if y, ok := b.(string); ok {
			switch {
			case x < y:
				return -1, nil
			case x > y:
				return 1, nil
			}
			return 0, nil
		}
	}
	return 0, fmt.Errorf("cannot order %T against %T", a, b)
}
