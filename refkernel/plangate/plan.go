package plangate

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/agentconform/conform/refkernel/internal/await"
	"github.com/agentconform/conform/spec/wire"
)

// Previewer is the part of the Host plan building needs.
type Previewer interface {
	Preview(ctx context.Context, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error)
}

// Proposal is one resource call to put in the plan.
type Proposal struct {
	ToolCallID string
	Schema     wire.ToolSchema
	Input      json.RawMessage
}

// Pending is the decision of an item nobody has decided yet: empty, as the
// protocol spells it.
const Pending = ""

// Build makes one plan item per proposal, snapshotting what the schema says
// now, and fetches the previews of tools that have one, all at once, each
// under the timeout.
func Build(ctx context.Context, p Previewer, cc wire.CallContext, props []Proposal, newID func() string, timeout time.Duration) wire.Plan {
	plan := wire.Plan{Items: make([]wire.PlanItem, len(props))}
	var wg sync.WaitGroup
	for i, pr := range props {
		s := pr.Schema
		plan.Items[i] = wire.PlanItem{
			ID:          newID(),
			ToolCallID:  pr.ToolCallID,
			Provider:    s.Provider,
			Tool:        s.Name,
			Kind:        s.Kind,
			Risk:        s.Risk,
			Description: s.Description,
			Input:       pr.Input,
			Decision:    Pending,
		}
		if !s.HasPreview || s.Kind != wire.KindResource {
			continue
		}
		wg.Add(1)
		// The params are copied out now: a preview that outlives its
		// deadline must not read the item while the loop goes on with it.
		params := wire.ToolPreviewParams{CallContext: cc, CallID: pr.ToolCallID, Provider: s.Provider, Tool: s.Name, Input: pr.Input}
		go func(item *wire.PlanItem) {
			defer wg.Done()
			res, err := await.Call(ctx, timeout, func(ctx context.Context) (wire.ToolPreviewResult, error) {
				return p.Preview(ctx, params)
			})
			if err == nil {
				item.Preview = &res.Preview
			}
		}(&plan.Items[i])
	}
	wg.Wait()
	return plan
}
