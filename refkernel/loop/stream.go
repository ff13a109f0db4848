package loop

import (
	"bytes"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// stepModelCall is steps 3-4: stream, accumulate, price every usage event,
// and recover from model errors as the Retry part decides: back off and
// send the same request again (ER-01, ER-02, ER-05), ask the context
// provider to reduce and send the rebuilt request (ER-06), or fail (ER-03,
// ER-07). Every retry is a new model/stream request with the attempt
// number raised; a rebuilt request starts again at attempt 1.
func stepModelCall(t *Turn) error {
	s := t.Session
	if t.Request == nil { // only with a reordered step list
		t.Request = t.newRequest()
	}
	params := *t.Request
	reductions := 0
	for attempt := 1; ; attempt++ {
		params.Attempt = attempt
		ctx, span := s.tracer.Start(t.Ctx, wire.RoleModelCall, "model_call", trace.Turn(t.ID),
			attribute.String("conform.purpose", params.Purpose), attribute.Int("conform.attempt", attempt))
		res, err := s.host.Stream(ctx, params)
		span.End()
		if err != nil {
			return err
		}
		got := accumulate(res.Events)
		if err := s.charge(t, got.usages); err != nil {
			return err
		}
		got.stop, got.err = s.parts.Retry.Classify(got.stop, got.err)
		if got.err != nil {
			d := s.parts.Retry.Decide(s.cfg.Retry, *got.err, retry.State{
				Attempt: attempt, SessionRetries: s.retries, Reductions: reductions, Fallbacks: s.cfg.Model.Fallbacks,
			})
			switch d.Action {
			case retry.Retry:
				s.retries++
				s.emit(t.ID, wire.EventRetry, map[string]any{
					"attempt": attempt, "category": got.err.Category, "delay_ms": d.Delay.Milliseconds(),
				})
				if err := s.wait(t, d.Delay); err != nil {
					return err
				}
				if d.Model != "" {
					params.Model = d.Model
				}
				continue
			case retry.Reduce:
				reductions++
				next, err := s.reduce(t, params)
				if err != nil {
					return err
				}
				if next != nil {
					params, attempt = *next, 0
					continue
				}
				// Nothing shrank: the same request would fail the same
				// way, so the turn fails cleanly instead (ER-06, A-27).
			}
		}
		t.Message, t.StopReason, t.ModelError = got.msg, got.stop, got.err
		s.reportModelOutcome(t)
		return nil
	}
}

// reduce runs a context-assemble pass with reduce: true and rebuilds the
// request through pre-model-call. It returns nil when the rebuilt request
// is the failed one: a request is never resent unchanged after
// context_length_exceeded (ER-03).
func (s *Session) reduce(t *Turn, failed wire.ModelStreamParams) (*wire.ModelStreamParams, error) {
	res, err := s.host.Assemble(t.Ctx, wire.ContextAssembleParams{
		CallContext: t.CallContext, Turn: t.Number, History: s.history, Reduce: true,
	})
	if err != nil {
		return nil, err
	}
	t.Contributions = res.Contributions
	if err := stepPreModelCall(t); err != nil {
		return nil, err
	}
	next := *t.Request
	next.Model = failed.Model
	if sameRequest(next, failed) {
		return nil, nil
	}
	return &next, nil
}

// sameRequest compares what the model sees of two requests.
func sameRequest(a, b wire.ModelStreamParams) bool {
	a.Attempt, b.Attempt = 0, 0
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func (s *Session) wait(t *Turn, d time.Duration) error {
	select {
	case <-s.clock.After(d):
		return nil
	case <-t.Ctx.Done():
		return t.Ctx.Err()
	}
}

// reportModelOutcome makes a content filter and a model error visible as
// conditions of their own (ER-08): a content_filtered event for a filtered
// reply, whether the provider said so by stop reason or by error, and a
// model_error event with the category for a model error (ER-06, ER-07).
func (s *Session) reportModelOutcome(t *Turn) {
	if t.StopReason == wire.ModelErrContentFiltered || (t.ModelError != nil && t.ModelError.Category == wire.ModelErrContentFiltered) {
		msg := "the model's output was filtered"
		if t.ModelError != nil {
			msg = t.ModelError.Message
		}
		s.emit(t.ID, wire.EventContentFilter, map[string]any{"message": msg, "stop_reason": t.StopReason})
	}
	if e := t.ModelError; e != nil {
		p := map[string]any{"category": e.Category, "message": e.Message, "retryable": e.Retryable}
		if e.RetryAfterMS != nil {
			p["retry_after_ms"] = *e.RetryAfterMS
		}
		s.emit(t.ID, wire.EventModelError, p)
	}
}

// streamed is a model stream folded into one reply.
type streamed struct {
	msg    wire.Message
	usages []wire.Usage
	stop   string
	err    *wire.ModelError
}

// accumulate folds the stream: text deltas into one text block where the
// first delta appeared, each tool_call into a tool_use block.
func accumulate(events []wire.StreamEvent) streamed {
	out := streamed{msg: wire.Message{Role: "assistant", Content: []wire.ContentBlock{}}}
	text := -1
	for _, e := range events {
		switch e.Type {
		case wire.EventTextDelta:
			if text < 0 {
				text = len(out.msg.Content)
				out.msg.Content = append(out.msg.Content, wire.ContentBlock{Type: wire.BlockText})
			}
			out.msg.Content[text].Text += e.Text
		case wire.EventToolCall:
			input := e.Input
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			out.msg.Content = append(out.msg.Content, wire.ContentBlock{Type: wire.BlockToolUse, ID: e.ID, Name: e.Name, Input: input})
		case wire.EventUsage:
			if e.Usage != nil {
				out.usages = append(out.usages, *e.Usage)
			}
		case wire.EventStop:
			out.stop = e.StopReason
		case wire.EventErrorSE:
			if e.Error != nil {
				me := *e.Error
				out.err = &me
			} else {
				out.err = &wire.ModelError{Category: wire.ModelErrUnknown, Message: "error event without details"}
			}
		}
	}
	return out
}

func addUsage(sum *wire.Usage, u wire.Usage) {
	sum.InputTokens += u.InputTokens
	sum.OutputTokens += u.OutputTokens
	sum.CacheReadTokens = addOpt(sum.CacheReadTokens, u.CacheReadTokens)
	sum.CacheWriteTokens = addOpt(sum.CacheWriteTokens, u.CacheWriteTokens)
	sum.ReasoningTokens = addOpt(sum.ReasoningTokens, u.ReasoningTokens)
}

func addOpt(a, b *int64) *int64 {
	if b == nil {
		return a
	}
	v := *b
	if a != nil {
		v += *a
	}
	return &v
}
