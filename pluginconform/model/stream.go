package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	"github.com/agentconform/conform/pluginconform/kit"
)

// outcome is what one StreamCompletion did.
type outcome struct {
	events []*modelv1.StreamEvent
	// endErr is the status the stream ended with (nil: it closed cleanly).
	endErr error
	// hung: no end within the call timeout; openAfter: still open a grace
	// period after its terminal event.
	hung, openAfter bool
	// cancelled: the caller cancelled it (cancelAfter); cancelledEarly:
	// the terminal event came before the cancel could.
	cancelled bool
}

// complete runs one StreamCompletion and collects everything it sent. With
// cancelAfter > 0 it cancels the stream once that many events arrived.
func (r *run) complete(ctx context.Context, req *modelv1.StreamCompletionRequest, cancelAfter int) outcome {
	var o outcome
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := r.client.StreamCompletion(c, req)
	if err != nil {
		o.endErr = err
		r.secrets.SeeErr("a StreamCompletion error", err)
		return o
	}
	type item struct {
		ev  *modelv1.StreamEvent
		err error
	}
	ch := make(chan item, 64)
	go func() {
		for {
			ev, err := st.Recv()
			select {
			case ch <- item{ev, err}:
			case <-c.Done(): // the caller stopped reading (a hang, a stream left open)
				return
			}
			if err != nil {
				return
			}
		}
	}()
	deadline := time.NewTimer(r.opt.CallTimeout)
	defer deadline.Stop()
	var grace <-chan time.Time
	for {
		select {
		case it := <-ch:
			if it.err != nil {
				if !errors.Is(it.err, io.EOF) && !o.cancelled {
					o.endErr = it.err
					r.secrets.SeeErr("a StreamCompletion error", it.err)
				}
				return o
			}
			r.secrets.SeeMsg("a StreamCompletion event", it.ev)
			o.events = append(o.events, it.ev)
			if cancelAfter > 0 && len(o.events) == cancelAfter && !o.cancelled {
				if terminal(it.ev) {
					return o // it ended before the cancel could land
				}
				o.cancelled = true
				cancel()
				return o // what follows a cancel never reaches a kernel
			}
			if terminal(it.ev) && grace == nil && !o.cancelled {
				grace = time.After(r.grace())
			}
		case <-grace:
			o.openAfter = true
			return o
		case <-deadline.C:
			o.hung = true
			return o
		}
	}
}

// grace is how long a stream may stay open after its terminal event: the
// plugin's own teardown, under load, with a 5x margin.
func (r *run) grace() time.Duration {
	return time.Duration(2 * float64(time.Second) * r.opt.Multiplier)
}

func terminal(ev *modelv1.StreamEvent) bool { return ev.GetStop() != nil || ev.GetError() != nil }

func eventName(ev *modelv1.StreamEvent) string {
	switch ev.GetEvent().(type) {
	case *modelv1.StreamEvent_TextDelta_:
		return "text_delta"
	case *modelv1.StreamEvent_ThinkingDelta_:
		return "thinking_delta"
	case *modelv1.StreamEvent_ThinkingSignature_:
		return "thinking_signature"
	case *modelv1.StreamEvent_ToolCallStart_:
		return "tool_call_start"
	case *modelv1.StreamEvent_ToolCallDelta_:
		return "tool_call_delta"
	case *modelv1.StreamEvent_ToolCallDone_:
		return "tool_call_done"
	case *modelv1.StreamEvent_Usage:
		return "usage"
	case *modelv1.StreamEvent_Stop_:
		return "stop (" + ev.GetStop().GetReason().String() + ")"
	case *modelv1.StreamEvent_Error_:
		return "error (" + ev.GetError().GetError().GetCategory().String() + ")"
	}
	return "an event with no variant set"
}

// text is the text the stream carried.
func (o outcome) text() string {
	var b strings.Builder
	for _, ev := range o.events {
		b.WriteString(ev.GetTextDelta().GetText())
	}
	return b.String()
}

// stop is the stream's stop event, nil when none.
func (o outcome) stop() *modelv1.StreamEvent_Stop {
	for _, ev := range o.events {
		if s := ev.GetStop(); s != nil {
			return s
		}
	}
	return nil
}

// modelErr is the failure the stream reported: an in-band error event's
// ModelError or the one in the status it ended with; nil when none.
func (o outcome) modelErr() *modelv1.ModelError {
	for _, ev := range o.events {
		if e := ev.GetError(); e != nil {
			return e.GetError()
		}
	}
	if o.endErr != nil {
		return statusModelError(o.endErr)
	}
	return nil
}

func statusModelError(err error) *modelv1.ModelError {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if me, ok := d.(*modelv1.ModelError); ok {
			return me
		}
	}
	return nil
}

func (o outcome) toolCalls() []*modelv1.StreamEvent_ToolCallStart {
	var out []*modelv1.StreamEvent_ToolCallStart
	for _, ev := range o.events {
		if s := ev.GetToolCallStart(); s != nil {
			out = append(out, s)
		}
	}
	return out
}

func (o outcome) usage() *modelv1.Usage {
	var u *modelv1.Usage
	for _, ev := range o.events {
		if x := ev.GetUsage(); x != nil {
			u = x
		}
	}
	return u
}

// judgeStream applies the rules every stream keeps, whatever was asked:
// its shape (MP-11), its stop (MP-12, MP-13), its errors (MP-14..MP-16),
// thinking events (MP-23), usage (MP-31) and parallel calls (MP-28).
func judgeStream(m *modelv1.ModelSpec, req *modelv1.StreamCompletionRequest, o outcome, v kit.Verdicts) {
	terminals, first := 0, -1
	for i, ev := range o.events {
		if ev.GetEvent() == nil {
			v.SetOnce("MP-11", fmt.Sprintf("event %d has no variant set", i+1))
		}
		if terminal(ev) {
			terminals++
			if first < 0 {
				first = i
			}
		}
	}
	switch {
	case o.cancelled:
	case terminals == 0 && o.endErr == nil:
		v.SetOnce("MP-11", fmt.Sprintf("the stream closed after %d %s with no stop or error event", len(o.events), kit.Plural(len(o.events), "event", "events")))
	case terminals == 0:
		// A classified failure as a gRPC status is allowed; MP-15 judges it.
	case first < len(o.events)-1:
		v.SetOnce("MP-11", fmt.Sprintf("%s came after the terminal %s", eventName(o.events[first+1]), eventName(o.events[first])))
	case o.openAfter:
		v.SetOnce("MP-11", "the stream stayed open after its terminal "+eventName(o.events[first]))
	case o.endErr != nil:
		v.SetOnce("MP-11", "the stream ended with gRPC status "+status.Code(o.endErr).String()+" after its terminal "+eventName(o.events[first]))
	default:
		v.SetOnce("MP-11", "")
	}
	if s := o.stop(); s != nil {
		judgeStop(s, req, v)
	}
	if seqs := req.GetParams().GetStopSequences(); len(seqs) > 0 && !o.cancelled {
		msg := ""
		for _, q := range seqs {
			if q != "" && strings.Contains(o.text(), q) {
				msg = fmt.Sprintf("the generated text %q contains stop sequence %q", kit.Clip(o.text(), 200), q)
				break
			}
		}
		v.SetOnce("MP-13", msg)
	}
	for _, ev := range o.events {
		if e := ev.GetError(); e != nil {
			judgeModelError(e.GetError(), "an in-band error event", v)
		}
	}
	if o.endErr != nil && !o.cancelled {
		judgeStatus(o.endErr, v)
	}
	thinking := m.GetThinking().GetSupported()
	for _, ev := range o.events {
		if (ev.GetThinkingDelta() != nil || ev.GetThinkingSignature() != nil) && !thinking {
			v.SetOnce("MP-23", "model "+m.GetId()+" (ThinkingSpec unsupported) sent "+eventName(ev))
		}
	}
	if !thinking {
		v.SetOnce("MP-23", "")
	}
	for _, ev := range o.events {
		if u := ev.GetUsage(); u != nil {
			v.SetOnce("MP-31", usageProblem(m, u))
		}
	}
	if m.GetSupportsToolUse() && !m.GetSupportsParallelToolCalls() && len(req.GetTools()) > 1 {
		msg := ""
		if n := len(o.toolCalls()); n > 1 {
			msg = fmt.Sprintf("model %s does not declare parallel tool calls but called %d tools in one completion", m.GetId(), n)
		}
		v.SetOnce("MP-28", msg)
	}
}

func judgeStop(s *modelv1.StreamEvent_Stop, req *modelv1.StreamCompletionRequest, v kit.Verdicts) {
	reason := s.GetReason()
	switch {
	case reason == modelv1.StopReason_STOP_REASON_UNSPECIFIED || modelv1.StopReason_name[int32(reason)] == "":
		v.SetOnce("MP-12", "a stop event has reason "+reason.String())
	case reason == modelv1.StopReason_STOP_REASON_STOP_SEQUENCE && s.MatchedStopSequence == nil:
		v.SetOnce("MP-12", "a stop for a stop sequence does not say which (matched_stop_sequence unset)")
	case reason == modelv1.StopReason_STOP_REASON_STOP_SEQUENCE && !contains(req.GetParams().GetStopSequences(), s.GetMatchedStopSequence()):
		v.SetOnce("MP-12", fmt.Sprintf("matched_stop_sequence %q is not one of the request's stop sequences", s.GetMatchedStopSequence()))
	case reason != modelv1.StopReason_STOP_REASON_STOP_SEQUENCE && s.MatchedStopSequence != nil:
		v.SetOnce("MP-12", fmt.Sprintf("a stop with reason %s carries matched_stop_sequence %q", reason, s.GetMatchedStopSequence()))
	default:
		v.SetOnce("MP-12", "")
	}
}

// judgeModelError checks a ModelError's fields (MP-14, MP-16).
func judgeModelError(me *modelv1.ModelError, where string, v kit.Verdicts) {
	cat := me.GetCategory()
	switch {
	case me == nil:
		v.SetOnce("MP-14", where+" carries no ModelError")
	case cat == modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_UNSPECIFIED || modelv1.ModelErrorCategory_name[int32(cat)] == "":
		v.SetOnce("MP-14", where+" has category "+cat.String())
	case strings.TrimSpace(me.GetMessage()) == "":
		v.SetOnce("MP-14", where+" of category "+cat.String()+" has an empty message")
	case cat == modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_UNKNOWN && me.GetRawDetail() == "":
		v.SetOnce("MP-14", where+" of category unknown carries no raw vendor detail")
	default:
		v.SetOnce("MP-14", "")
	}
	if me == nil {
		return
	}
	if me.GetRawDetail() == "" {
		v.SetOnce("MP-16", where+" of category "+cat.String()+" carries no raw vendor detail (raw_detail)")
	} else {
		v.SetOnce("MP-16", "")
	}
}

// codesOf are the gRPC codes a category may travel as.
var codesOf = map[modelv1.ModelErrorCategory]codes.Code{
	modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_CONTEXT_LENGTH_EXCEEDED: codes.ResourceExhausted,
	modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_RATE_LIMITED:            codes.ResourceExhausted,
	modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_OVERLOADED:              codes.Unavailable,
	modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_AUTH_ERROR:              codes.Unauthenticated,
	modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_INVALID_REQUEST:         codes.InvalidArgument,
	modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_CONTENT_FILTERED:        codes.FailedPrecondition,
	modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_UNKNOWN:                 codes.Internal,
}

// judgeStatus checks a failure reported as a gRPC status: never Unknown,
// a ModelError in its details, the code its category maps to (MP-15); and
// the ModelError's fields (MP-14, MP-16).
func judgeStatus(err error, v kit.Verdicts) {
	st, _ := status.FromError(err)
	code := st.Code()
	me := statusModelError(err)
	switch {
	case code == codes.Unknown:
		v.SetOnce("MP-15", fmt.Sprintf("a failure came as gRPC status Unknown (%q): unmapped, where unknown failures map to Internal", kit.Clip(st.Message(), 200)))
	case me == nil:
		v.SetOnce("MP-15", fmt.Sprintf("a failure came as gRPC status %s (%q) with no ModelError in its details", code, kit.Clip(st.Message(), 200)))
	case codesOf[me.GetCategory()] != code:
		v.SetOnce("MP-15", fmt.Sprintf("a ModelError of category %s came as gRPC status %s, not %s", me.GetCategory(), code, codesOf[me.GetCategory()]))
	default:
		v.SetOnce("MP-15", "")
	}
	if me != nil {
		judgeModelError(me, "the ModelError of a gRPC status", v)
	}
}

func usageProblem(m *modelv1.ModelSpec, u *modelv1.Usage) string {
	for name, n := range map[string]int64{"input_tokens": u.GetInputTokens(), "output_tokens": u.GetOutputTokens(),
		"cache_read_tokens": u.GetCacheReadTokens(), "cache_write_tokens": u.GetCacheWriteTokens(), "reasoning_tokens": u.GetReasoningTokens()} {
		if n < 0 {
			return fmt.Sprintf("usage reports %s %d", name, n)
		}
	}
	if (u.CacheReadTokens != nil || u.CacheWriteTokens != nil) && !m.GetCaching().GetSupported() {
		return "model " + m.GetId() + " (caching unsupported) reports cache token counts"
	}
	if u.ReasoningTokens != nil && !m.GetThinking().GetSupported() {
		return "model " + m.GetId() + " (thinking unsupported) reports reasoning_tokens"
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
