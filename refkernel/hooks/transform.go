package hooks

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/agentconform/conform/refkernel/internal/canon"
	"github.com/agentconform/conform/spec/wire"
)

// CheckTransform accepts a transform answer only if it keeps the variant and
// changes nothing but the one mutable field, messages at pre-model-call.
// Fields are compared as canonical JSON, so re-encoding by the subscriber
// (key order, spacing) is not a change.
func CheckTransform(point string, before wire.HookPayload, res wire.HookDispatchResult) (wire.HookPayload, error) {
	if res.Outcome != wire.OutcomeTransform || res.Payload == nil {
		return before, fmt.Errorf("transform subscriber answered %s without a payload to use", describe(res))
	}
	after := *res.Payload
	if after.Variant != before.Variant {
		return before, fmt.Errorf("payload variant changed from %q to %q", before.Variant, after.Variant)
	}
	fixedBefore, fixedAfter := before, after
	if point == wire.PointPreModelCall {
		fixedBefore.Messages, fixedAfter.Messages = nil, nil
	}
	a, errA := canon.Value(fixedBefore)
	b, errB := canon.Value(fixedAfter)
	if err := errors.Join(errA, errB); err != nil {
		return before, err
	}
	if !bytes.Equal(a, b) {
		if point == wire.PointPreModelCall {
			return before, errors.New("payload changed in fields other than messages")
		}
		return before, fmt.Errorf("payload changed at %s, where no field is mutable", point)
	}
	next := before
	next.Messages = after.Messages
	return next, nil
}
