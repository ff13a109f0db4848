package provkit

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	slashcommandv1 "github.com/agentconform/conform/api/gen/pluggableharness/slashcommand/v1"
)

// A plugin's own Unavailable (a source gone) is an answer; the
// transport's Unavailable, a deadline or a cancel is not.
func TestTransport(t *testing.T) {
	withDetail, _ := status.New(codes.Unavailable, "source gone").WithDetails(&contextv1.ContextError{Category: contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_SOURCE_UNAVAILABLE, Message: "gone"})
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{status.Error(codes.Unavailable, "connection error: desc = \"transport: error while dialing\""), true},
		{status.Error(codes.Unavailable, "error reading from server: EOF"), true},
		{status.Error(codes.DeadlineExceeded, "context deadline exceeded"), true},
		{status.Error(codes.Canceled, "context canceled"), true},
		{status.Error(codes.Unavailable, "the source is unreadable"), false},
		{withDetail.Err(), false},
		{status.Error(codes.Internal, "boom"), false},
		{errors.New("not a status"), false},
	} {
		if got := Transport(tc.err); got != tc.want {
			t.Errorf("Transport(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestDetail(t *testing.T) {
	st, _ := status.New(codes.InvalidArgument, "bad").WithDetails(&contextv1.ContextError{Category: contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_INVALID_REQUEST, Message: "bad"})
	ce, got := Detail[*contextv1.ContextError](st.Err())
	if ce == nil || ce.GetCategory() != contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_INVALID_REQUEST || got.Code() != codes.InvalidArgument {
		t.Errorf("Detail = %v, %v", ce, got.Code())
	}
	if ce, _ := Detail[*contextv1.ContextError](status.Error(codes.Internal, "plain")); ce != nil {
		t.Errorf("a plain status has detail %v", ce)
	}
}

func TestCheckDeclared(t *testing.T) {
	if _, any := CheckDeclared(nil, nil); any {
		t.Error("nothing declared counts as something")
	}
	good := []*slashcommandv1.SlashCommandSpec{{Name: "x", Dispatch: slashcommandv1.Dispatch_DISPATCH_PROMPT_EXPANSION, Template: proto.String("t")}}
	if msg, any := CheckDeclared([]commonv1.HookPoint{commonv1.HookPoint_HOOK_POINT_SESSION_END}, good); !any || msg != "" {
		t.Errorf("good declarations: %q %v", msg, any)
	}
	for _, tc := range []struct {
		points []commonv1.HookPoint
		cmds   []*slashcommandv1.SlashCommandSpec
		want   string
	}{
		{[]commonv1.HookPoint{commonv1.HookPoint_HOOK_POINT_UNSPECIFIED}, nil, "not a real one"},
		{[]commonv1.HookPoint{commonv1.HookPoint_HOOK_POINT_SESSION_END, commonv1.HookPoint_HOOK_POINT_SESSION_END}, nil, "twice"},
		{nil, []*slashcommandv1.SlashCommandSpec{{Dispatch: slashcommandv1.Dispatch_DISPATCH_PROMPT_EXPANSION}}, "no name"},
		{nil, []*slashcommandv1.SlashCommandSpec{{Name: "x"}}, "no dispatch"},
		{nil, []*slashcommandv1.SlashCommandSpec{{Name: "x", Dispatch: slashcommandv1.Dispatch_DISPATCH_DIRECT_INVOKE}}, "names none"},
		{nil, []*slashcommandv1.SlashCommandSpec{{Name: "x", Dispatch: slashcommandv1.Dispatch_DISPATCH_PROMPT_EXPANSION}}, "no template"},
	} {
		if msg, _ := CheckDeclared(tc.points, tc.cmds); !strings.Contains(msg, tc.want) {
			t.Errorf("CheckDeclared(%v, %v) = %q, want it to say %q", tc.points, tc.cmds, msg, tc.want)
		}
	}
}
