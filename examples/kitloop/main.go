package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
)

func main() {
	// CheckOutgoing as a strict author's tests use it: anything the kit
	// sends that the protocol's schemas refuse ends the kernel, so a kit
	// whose self-check itself goes wrong is seen too.
	kernelkit.Main(loop{}, kernelkit.CheckOutgoing(func(err error) {
		fmt.Fprintln(os.Stderr, "kitloop: the kit sent what the protocol refuses:", err)
		os.Exit(3)
	}))
}

type loop struct{}

func (loop) Info() kernelkit.Info {
	// The readings kernelkit's helpers implement: Dispatch sets no
	// deadline for an effective hook timeout of 0.
	return kernelkit.Info{Name: "kitloop", Version: "0.1.0", Readings: map[string]string{"hooks.zero_timeout": "none"}}
}

// bound is the status a session ends with when one of its bounds is
// reached before the model answers without calls, and the bound's name;
// "" while none is.
func bound(s *kernelkit.Session, turns int, started, now time.Time) (status, name string) {
	b := s.Config.Bounds
	switch {
	case b.MaxTurns != nil && turns >= *b.MaxTurns:
		return wire.StatusErrorMaxTurns, "max_turns"
	case b.MaxCostUSD != nil && s.Spent() >= *b.MaxCostUSD:
		return wire.StatusErrorMaxBudgetUSD, "max_cost_usd"
	case b.MaxWallClockS != nil && now.Sub(started).Seconds() >= *b.MaxWallClockS:
		return wire.StatusErrorMaxWallClock, "max_wall_clock_s"
	}
	return "", ""
}

// filtered says whether a reply ended on a content filter.
func filtered(r kernelkit.Reply) bool {
	return r.StopReason == wire.ModelErrContentFiltered
}

func (loop) Run(ctx context.Context, h *kernelkit.Host, p wire.RunParams) (wire.RunSessionResult, error) {
	s := kernelkit.NewSession(h, p)
	started := s.Now()
	if err := s.Start(ctx); err != nil {
		return s.Finish(ctx, ended(ctx, wire.StatusFailed), nil, err), nil
	}
	lastTurn := ""
	history := []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: p.Prompt}}}}
	for turns := 0; ; turns++ {
		if status, name := bound(s, turns, started, s.Now()); status != "" {
			s.Event(lastTurn, wire.EventLimitReached, map[string]any{"bound": name, "soft": false})
			return finalAnswer(ctx, s, history, status)
		}
		turn, err := s.NewTurn(ctx, history)
		if err != nil {
			return s.Finish(ctx, ended(ctx, wire.StatusFailed), nil, err), nil
		}
		reply, err := turn.Model(ctx, history, s.ToolSpecs())
		if reply.Error != nil && reply.Error.Category == wire.ModelErrContentFiltered {
			s.Event(turn.ID, wire.EventContentFilter, map[string]any{"message": reply.Error.Message, "category": reply.Error.Category})
		}
		if err != nil {
			return s.Finish(ctx, ended(ctx, wire.StatusFailed), nil, err), nil
		}
		lastTurn = turn.ID
		if filtered(reply) {
			// A content filter is its own condition (ER-08), not a
			// generic failure or an ordinary answer.
			s.Event(turn.ID, wire.EventContentFilter, map[string]any{"message": "the model's reply was filtered", "stop_reason": reply.StopReason})
		}
		history = append(history, reply.Message)
		if len(reply.Calls) == 0 {
			return s.Finish(ctx, wire.StatusCompleted, &reply.Message, nil), nil
		}
		results, err := turn.RunTools(ctx, reply.Calls)
		if err != nil {
			return s.Finish(ctx, ended(ctx, wire.StatusFailed), nil, err), nil
		}
		for _, b := range results.Content {
			if b.IsError {
				s.Event(turn.ID, "tool_failed", map[string]any{"tool_call_id": b.ToolUseID, "category": b.ErrorCategory})
			}
		}
		history = append(history, results)
	}
}

// finalAnswer is the one graceful turn after a bound: a model request with
// purpose final_answer and no tools, whose answer ends the session with the
// bound's status.
func finalAnswer(ctx context.Context, s *kernelkit.Session, history []wire.Message, status string) (wire.RunSessionResult, error) {
	turn := s.Begin()
	turn.Purpose = wire.PurposeFinalAnswer
	if err := turn.Assemble(ctx, history); err != nil {
		return s.Finish(ctx, ended(ctx, status), nil, err), nil
	}
	reply, err := turn.Model(ctx, history, nil)
	if err != nil {
		return s.Finish(ctx, ended(ctx, status), nil, err), nil
	}
	return s.Finish(ctx, status, &reply.Message, nil), nil
}

// ended is status unless the session was cancelled: a session whose
// context ended ends cancelled, whatever it was doing.
func ended(ctx context.Context, status string) string {
	if ctx.Err() != nil {
		return wire.StatusCancelled
	}
	return status
}
