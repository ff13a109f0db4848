package refplugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	kernelv1 "github.com/agentconform/conform/api/gen/pluggableharness/kernel/v1"
	renderv1 "github.com/agentconform/conform/api/gen/pluggableharness/render/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
)

// notePayloadVersion is the schema version of the events write_note emits
// and Render reads.
const notePayloadVersion = "1"

func progress(msg string) *toolv1.ToolEvent {
	return &toolv1.ToolEvent{Event: &toolv1.ToolEvent_Progress_{Progress: &toolv1.ToolEvent_Progress{Message: msg}}}
}

func partial(payload map[string]any) (*toolv1.ToolEvent, error) {
	s, err := structpb.NewStruct(payload)
	if err != nil {
		return nil, err
	}
	return &toolv1.ToolEvent{Event: &toolv1.ToolEvent_PartialResult_{PartialResult: &toolv1.ToolEvent_PartialResult{Payload: s}}}, nil
}

// notePath is where a note lives, relative to the working directory: the
// name is hashed, so no name can climb out of the notes folder.
func (p *Provider) notePath(name string) string {
	_, dir, _ := p.settings()
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(filepath.Clean("/" + dir)[1:], "note-"+hex.EncodeToString(sum[:8])+".txt")
}

func (p *Provider) write(ctx context.Context, call *toolv1.ToolCall, args map[string]any, out send) error {
	wd := call.GetCallContext().GetWorkingDirectory()
	if wd == "" {
		return out(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_PERMISSION_DENIED, "no working directory in the call context", nil))
	}
	name, _ := args["name"].(string)
	text, _ := args["text"].(string)
	appendMode, _ := args["append"].(bool)
	rel := p.notePath(name)
	if err := out(progress("writing " + rel)); err != nil {
		return nil // cancelled before anything was written
	}
	n, err := writeNote(filepath.Join(wd, rel), text, appendMode)
	if err != nil {
		return out(toolError(toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_EXECUTION_FAILED, "writing the note failed", map[string]any{"error": err.Error()}))
	}
	if ctx.Err() != nil {
		// Best effort: say what happened; gRPC may drop it, but never
		// claim success.
		ev, _ := partial(map[string]any{"note": "cancelled after the note was written", "path": rel})
		_ = out(ev)
		return nil
	}
	if k := p.callback(); k != nil {
		payload, _ := json.Marshal(map[string]any{"path": rel, "bytes": n, "text": text, "append": appendMode})
		_, _ = k.Emit(ctx, &kernelv1.EmitRequest{
			SessionId: call.GetCallContext().GetSessionId(), Kind: kernelv1.EventKind_EVENT_KIND_TOOL_RESULT,
			SchemaVersion: notePayloadVersion, Payload: payload,
		})
	}
	ev, err := result(map[string]any{"path": rel, "bytes": float64(n)})
	if err != nil {
		return err
	}
	return out(ev)
}

func writeNote(path, text string, appendMode bool) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendMode {
		flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return 0, err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// Preview describes write_note and exec without doing anything; the other
// operations have nothing worth previewing.
func (p *Provider) Preview(_ context.Context, req *toolv1.PreviewRequest) (*toolv1.PreviewResponse, error) {
	call := req.GetCall()
	args := call.GetArguments().AsMap()
	var text string
	switch call.GetToolName() {
	case OpWrite:
		name, _ := args["name"].(string)
		body, _ := args["text"].(string)
		mode, _ := args["append"].(bool)
		verb := "replace"
		if mode {
			verb = "append to"
		}
		rel := p.notePath(name)
		text = fmt.Sprintf("would %s %s with %d bytes", verb, rel, len(body))
		if p.faults.PreviewWrites && call.GetCallContext().GetWorkingDirectory() != "" {
			_, _ = writeNote(filepath.Join(call.GetCallContext().GetWorkingDirectory(), rel), body, mode)
		}
	case OpExec:
		text = fmt.Sprintf("would run a child printing %v", args["words"])
	default:
		return nil, status.Errorf(codes.Unimplemented, "no preview for %s", call.GetToolName())
	}
	return &toolv1.PreviewResponse{Preview: textTree(text)}, nil
}

// Render draws a write_note event: what was written where.
func (p *Provider) Render(_ context.Context, req *toolv1.RenderRequest) (*toolv1.RenderResponse, error) {
	if p.faults.RenderFails {
		return nil, status.Error(codes.Internal, "render broke")
	}
	if req.GetSchemaVersion() != notePayloadVersion {
		return nil, status.Errorf(codes.InvalidArgument, "unknown payload schema version %q", req.GetSchemaVersion())
	}
	var ev struct {
		Path  string `json:"path"`
		Bytes int64  `json:"bytes"`
		Text  string `json:"text"`
	}
	if err := json.Unmarshal(req.GetPayload(), &ev); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "not a write_note payload: %v", err)
	}
	tree := &renderv1.RenderTree{Root: &renderv1.RenderNode{Node: &renderv1.RenderNode_Group{Group: &renderv1.GroupNode{Children: []*renderv1.RenderNode{
		textTree(fmt.Sprintf("wrote %s (%d bytes)", ev.Path, ev.Bytes)).GetRoot(),
		{Node: &renderv1.RenderNode_CodeBlock{CodeBlock: &renderv1.CodeBlockNode{Content: ev.Text}}},
	}}}}}
	return &toolv1.RenderResponse{Tree: tree}, nil
}

func textTree(s string) *renderv1.RenderTree {
	return &renderv1.RenderTree{Root: &renderv1.RenderNode{Node: &renderv1.RenderNode_Text{Text: &renderv1.TextNode{Content: s}}}}
}
