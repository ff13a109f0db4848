package kernelkit_test

import (
	"context"
	"fmt"

	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
)

// toyLoop is the loop being wrapped, ten lines that know nothing of
// conform: ask the model, run the tools it calls, stop at an answer
// without calls.
func toyLoop(prompt string, model, tools func([]wire.Message) (wire.Message, error)) (wire.Message, error) {
	history := []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: prompt}}}}
	for {
		reply, err := model(history)
		if err != nil {
			return reply, err
		}
		history = append(history, reply)
		results, err := tools(history)
		if err != nil || len(results.Content) == 0 {
			return reply, err
		}
		history = append(history, results)
	}
}

// toyKernel is the adapter: the loop's model and tools are the harness's,
// reached through the kit's helpers.
type toyKernel struct{}

func (toyKernel) Info() kernelkit.Info { return kernelkit.Info{Name: "toy", Version: "0.1.0"} }

func (toyKernel) Run(ctx context.Context, h *kernelkit.Host, p wire.RunParams) (wire.RunSessionResult, error) {
	s := kernelkit.NewSession(h, p)
	if err := s.Start(ctx); err != nil {
		return s.Finish(ctx, wire.StatusFailed, nil, err), nil
	}
	var turn *kernelkit.Turn
	model := func(history []wire.Message) (wire.Message, error) {
		var err error
		if turn, err = s.NewTurn(ctx, history); err != nil { // context/assemble
			return wire.Message{}, err
		}
		reply, err := turn.Model(ctx, history, s.ToolSpecs()) // hooks, model/stream, cost/usage
		return reply.Message, err
	}
	tools := func(history []wire.Message) (wire.Message, error) {
		var calls []wire.ContentBlock
		for _, b := range history[len(history)-1].Content {
			if b.Type == wire.BlockToolUse {
				calls = append(calls, b)
			}
		}
		if len(calls) == 0 {
			return wire.Message{}, nil
		}
		return turn.RunTools(ctx, calls) // hooks, invokes, interactive calls, plan
	}
	final, err := toyLoop(p.Prompt, model, tools)
	switch {
	case ctx.Err() != nil:
		return s.Finish(ctx, wire.StatusCancelled, nil, nil), nil
	case err != nil:
		return s.Finish(ctx, wire.StatusFailed, nil, err), nil
	}
	return s.Finish(ctx, wire.StatusCompleted, &final, nil), nil
}

// A toy loop wrapped in 40 lines passes the turn-order requirement. Serve
// it to `conform run --kernel "go run ./toy"` with kernelkit.Main, or check
// it from its own tests with conformtest.TestKernel.
func Example() {
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: kernelkit.Launcher("toy", func() kernelkit.Kernel { return toyKernel{} }),
		Tags:     "@TA-01", Concurrency: 2,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range r.Requirements {
		if q.ID == "TA-01" {
			fmt.Println(q.ID, q.Status)
		}
	}
	// Output: TA-01 pass
}
