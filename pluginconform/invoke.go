package pluginconform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
)

// outcome is what one Invoke stream did.
type outcome struct {
	events []*toolv1.ToolEvent
	// endErr is the stream's non-OK end status, if any.
	endErr error
	// hung: the stream neither ended nor sent a terminal event in time.
	hung bool
	// openAfter: the stream stayed open after its terminal event.
	openAfter bool
	// died is the plugin's exit, when it ended during the call.
	died string
}

var callSeq atomic.Int64

// toolCall builds the call conform sends: a fresh id and a call context
// whose working directory is the run's scratch folder.
func (r *run) toolCall(op string, args map[string]any) (*toolv1.ToolCall, error) {
	return r.toolCallIn(op, args, r.wd)
}

// toolCallIn is toolCall with the working directory given.
func (r *run) toolCallIn(op string, args map[string]any, wd string) (*toolv1.ToolCall, error) {
	st, err := structpb.NewStruct(args)
	if err != nil {
		return nil, fmt.Errorf("conform built arguments a Struct cannot hold: %w", err)
	}
	n := callSeq.Add(1)
	return &toolv1.ToolCall{
		Id: "conform-call-" + strconv.FormatInt(n, 10), ToolName: op, Arguments: st,
		CallContext: &commonv1.CallContext{SessionId: "conform-session", TurnId: "conform-turn-" + strconv.FormatInt(n, 10), WorkingDirectory: wd},
	}, nil
}

// invoke runs one call to its end, reading on for a grace period after
// the terminal event to see whether anything follows it.
func (r *run) invoke(ctx context.Context, op string, args map[string]any, timeout time.Duration) outcome {
	var o outcome
	call, err := r.toolCall(op, args)
	if err != nil {
		o.endErr = err
		return o
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var graceFired atomic.Bool
	stream, err := r.plugin.Tool.Invoke(ctx, &toolv1.InvokeRequest{Call: call})
	if err != nil {
		return r.ended(o, err, ctx, &graceFired)
	}
	var grace *time.Timer
	defer func() {
		if grace != nil {
			grace.Stop()
		}
	}()
	where := "an Invoke event of " + strconv.Quote(op)
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return o
		}
		if err != nil {
			return r.ended(o, err, ctx, &graceFired)
		}
		r.secrets.SeeMsg(where, resp)
		ev := resp.GetEvent()
		o.events = append(o.events, ev)
		if terminal(ev) && grace == nil {
			grace = time.AfterFunc(r.grace(), func() { graceFired.Store(true); cancel() })
		}
	}
}

// ended classifies a stream that ended with an error.
func (r *run) ended(o outcome, err error, ctx context.Context, graceFired *atomic.Bool) outcome {
	switch {
	case graceFired.Load():
		o.openAfter = true
	case ctx.Err() == context.DeadlineExceeded:
		if d := r.died(err); d != "" {
			o.died = d
		} else {
			o.hung = true
		}
	default:
		if d := r.died(err); d != "" {
			o.died = d
			return o
		}
		r.secrets.SeeErr("an Invoke error", err)
		o.endErr = err
	}
	return o
}

// grace is how long a stream may stay open after its terminal event.
func (r *run) grace() time.Duration {
	return time.Duration(float64(2*time.Second) * r.opt.Multiplier)
}

func terminal(ev *toolv1.ToolEvent) bool {
	return ev.GetResult() != nil || ev.GetError() != nil
}

// eventName names an event for messages.
func eventName(ev *toolv1.ToolEvent) string {
	switch ev.GetEvent().(type) {
	case *toolv1.ToolEvent_OutputChunk_:
		return "output_chunk"
	case *toolv1.ToolEvent_Progress_:
		return "progress"
	case *toolv1.ToolEvent_PartialResult_:
		return "partial_result"
	case *toolv1.ToolEvent_ExitStatus_:
		return "exit_status"
	case *toolv1.ToolEvent_Result:
		return "result"
	case *toolv1.ToolEvent_Error:
		return "error (" + ev.GetError().GetCategory().String() + ")"
	}
	return "an empty event"
}

func statusText(err error) string {
	st, _ := status.FromError(err)
	if st.Code() == codes.Unknown && st.Message() == "" {
		return err.Error()
	}
	return fmt.Sprintf("gRPC status %s %q", st.Code(), clip(st.Message(), 200))
}
