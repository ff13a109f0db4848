package refplugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	kernelv1 "github.com/agentconform/conform/api/gen/pluggableharness/kernel/v1"
	logv1 "github.com/agentconform/conform/api/gen/pluggableharness/log/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
)

// Version is the reference plugin's version, as Describe reports it.
const Version = "0.1.0"

// callbackBrokerID is the broker stream the kernel serves its callback
// service on (upstream's pkg/common.CallbackBrokerID).
const callbackBrokerID = 1

// Provider is the reference tool provider. Use New.
type Provider struct {
	toolv1.UnimplementedToolServiceServer

	faults Faults
	broker *plugin.GRPCBroker

	mu         sync.Mutex
	configured bool
	token      string
	notesDir   string
	answer     string
	schemaN    int
	kernel     kernelv1.KernelCallbackServiceClient
}

// New returns a provider with the given faults (zero: the reference).
func New(f Faults) *Provider { return &Provider{faults: f, notesDir: "notes", answer: "yes"} }

// GetSchema declares the five operations, the configuration schema and the
// eight hook points.
func (p *Provider) GetSchema(context.Context, *toolv1.GetSchemaRequest) (*toolv1.GetSchemaResponse, error) {
	p.mu.Lock()
	p.schemaN++
	n := p.schemaN
	p.mu.Unlock()
	return &toolv1.GetSchemaResponse{
		Tools:               tools(p.faults, n),
		ConfigSchema:        configSchema(),
		SupportedHookPoints: hookPoints(),
	}, nil
}

// Describe reports the build's identity.
func (p *Provider) Describe(context.Context, *toolv1.DescribeRequest) (*toolv1.DescribeResponse, error) {
	cat := commonv1.Category_CATEGORY_TOOL
	if p.faults.DescribeWrongCategory {
		cat = commonv1.Category_CATEGORY_MODEL
	}
	return &toolv1.DescribeResponse{Producer: &commonv1.ProducerRef{
		Name: "conform-refplugin", Version: Version, Source: "github.com/agentconform/conform/refplugin",
		Category: cat, ProtocolVersion: 1,
	}}, nil
}

// Configure takes the token (required, secret) and the optional settings,
// and rejects a configuration without a token at once.
func (p *Provider) Configure(ctx context.Context, req *toolv1.ConfigureRequest) (*toolv1.ConfigureResponse, error) {
	cfg := req.GetConfig().AsMap()
	token, _ := cfg["token"].(string)
	if token == "" && !p.faults.ConfigureAcceptsMissing {
		return nil, toolStatus(codes.InvalidArgument, &toolv1.ToolError{
			Category: toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS,
			Message:  `configuration attribute "token" is required`,
		})
	}
	p.mu.Lock()
	p.configured, p.token = true, token
	if d, ok := cfg["notes_dir"].(string); ok && d != "" {
		p.notesDir = d
	}
	if a, ok := cfg["answer"].(string); ok && a != "" {
		p.answer = a
	}
	p.mu.Unlock()
	msg := "configured"
	if p.faults.SecretInLog {
		msg += " with token " + token
	}
	if p.faults.SecretInStderr {
		fmt.Fprintln(os.Stderr, "refplugin: token is", token)
	}
	p.log(ctx, logv1.LogLevel_LOG_LEVEL_INFO, msg)
	return &toolv1.ConfigureResponse{}, nil
}

// log sends one entry through the kernel callback service, dialling it on
// first use; a kernel that serves none only costs the entry.
func (p *Provider) log(ctx context.Context, level logv1.LogLevel, msg string) {
	k := p.callback()
	if k == nil {
		return
	}
	_, _ = k.Log(ctx, &kernelv1.LogRequest{Entries: []*logv1.LogEntry{{Level: level, Logger: "refplugin", Message: msg}}})
}

func (p *Provider) callback() kernelv1.KernelCallbackServiceClient {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kernel == nil && p.broker != nil {
		conn, err := p.broker.Dial(callbackBrokerID)
		if err != nil {
			return nil
		}
		p.kernel = kernelv1.NewKernelCallbackServiceClient(conn)
	}
	return p.kernel
}

func (p *Provider) settings() (token, notesDir, answer string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.token, p.notesDir, p.answer
}

// toolStatus is a gRPC status carrying a ToolError detail.
func toolStatus(c codes.Code, te *toolv1.ToolError) error {
	st, err := status.New(c, te.GetMessage()).WithDetails(te)
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	return st.Err()
}

// toolError builds the error event of a failed call.
func toolError(cat toolv1.ToolErrorCategory, msg string, details map[string]any) *toolv1.ToolEvent {
	te := &toolv1.ToolError{Category: cat, Message: msg}
	if details != nil {
		if s, err := structpb.NewStruct(details); err == nil {
			te.Details = s
		}
	}
	return &toolv1.ToolEvent{Event: &toolv1.ToolEvent_Error{Error: te}}
}

func result(payload map[string]any) (*toolv1.ToolEvent, error) {
	s, err := structpb.NewStruct(payload)
	if err != nil {
		return nil, err
	}
	return &toolv1.ToolEvent{Event: &toolv1.ToolEvent_Result{Result: &toolv1.ToolResult{Payload: s}}}, nil
}

// Plugin is the go-plugin entry of the provider: it serves ToolService and
// HookSubscriberService on one connection.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	Faults Faults
}

// GRPCServer registers both services.
func (pl *Plugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	p := New(pl.Faults)
	p.broker = broker
	toolv1.RegisterToolServiceServer(s, p)
	registerHooks(s, pl.Faults)
	return nil
}

// GRPCClient is never used: the plugin side only serves.
func (pl *Plugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("refplugin only serves")
}
