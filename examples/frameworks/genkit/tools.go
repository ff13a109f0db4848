package main

import (
	"encoding/json"
	"sync"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
)

// run is one session. A Genkit tool gets its input but not the request's
// ref, so the refs of the last reply's tool requests wait here, by name
// and input, for the tool to take one.
type run struct {
	s *kernelkit.Session

	mu   sync.Mutex
	turn *kernelkit.Turn
	last *kernelkit.Reply // the model call in flight's folded stream
	refs map[string][]string
}

func key(name string, input any) string {
	b, _ := json.Marshal(input) // map keys sorted: the same input, the same key
	return name + " " + string(b)
}

func (r *run) take(name string, input any) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key(name, input)
	q := r.refs[k]
	if len(q) == 0 {
		return ""
	}
	r.refs[k] = q[1:]
	return q[0]
}

func (r *run) turnID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.turn == nil {
		return ""
	}
	return r.turn.ID
}

// defineTool is a Genkit tool run by tool/invoke. Genkit has no tool hook
// point, no plan and no error result: a provider's is_error output is the
// tool's output, a failed request the tool's error (which ends Generate,
// ai/generate.go:791-830).
func (r *run) defineTool(g *genkit.Genkit, t wire.ToolSchema) ai.Tool {
	schema := t.InputSchema
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	return genkit.DefineToolWithInputSchema(g, t.Name, t.Description, schema, func(tc *ai.ToolContext, in any) (any, error) {
		input, _ := json.Marshal(in)
		res, err := r.s.Host.Invoke(tc, wire.ToolInvokeParams{
			CallContext: r.s.CallContext(r.turnID()), CallID: r.take(t.Name, in), Provider: t.Provider,
			Tool: t.Name, Input: input, Attempt: 1,
		})
		if err != nil {
			return nil, err
		}
		var out any
		_ = json.Unmarshal(res.Output, &out)
		return out, nil
	})
}
