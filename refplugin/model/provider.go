package model

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	kernelv1 "github.com/agentconform/conform/api/gen/pluggableharness/kernel/v1"
	logv1 "github.com/agentconform/conform/api/gen/pluggableharness/log/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	renderv1 "github.com/agentconform/conform/api/gen/pluggableharness/render/v1"
)

// Version is the reference model provider's version, as Describe reports it.
const Version = "0.1.0"

// callbackBrokerID is the broker stream the kernel serves its callback
// service on (upstream's pkg/common.CallbackBrokerID).
const callbackBrokerID = 1

// PayloadSchema is the schema_version of the usage payloads it emits.
const PayloadSchema = "refmodel.usage/1"

// Provider is the reference model provider. Use New.
type Provider struct {
	modelv1.UnimplementedModelServiceServer

	faults  Faults
	reading Readings
	broker  *plugin.GRPCBroker

	mu      sync.Mutex
	apiKey  string
	capsN   int
	kernel  kernelv1.KernelCallbackServiceClient
	callSeq int
}

// New returns a provider with the given faults (zero: the reference).
func New(f Faults) *Provider { return &Provider{faults: f} }

// NewWith returns a provider with the given faults and readings.
func NewWith(f Faults, rd Readings) *Provider { return &Provider{faults: f, reading: rd} }

// GetCapabilities declares the three models, the configuration schema and
// the two hook points; it never calls anything.
func (p *Provider) GetCapabilities(context.Context, *modelv1.GetCapabilitiesRequest) (*modelv1.GetCapabilitiesResponse, error) {
	p.mu.Lock()
	p.capsN++
	n := p.capsN
	p.mu.Unlock()
	caps := &modelv1.Capabilities{Models: models(p.faults, n), ConfigSchema: configSchema(), SupportedHookPoints: hookPoints(p.faults)}
	if p.faults.NoConfigSchema {
		caps.ConfigSchema = nil
	}
	return &modelv1.GetCapabilitiesResponse{Capabilities: caps}, nil
}

// Describe reports the build's identity.
func (p *Provider) Describe(context.Context, *modelv1.DescribeRequest) (*modelv1.DescribeResponse, error) {
	cat := commonv1.Category_CATEGORY_MODEL
	if p.faults.DescribeWrongCategory {
		cat = commonv1.Category_CATEGORY_TOOL
	}
	return &modelv1.DescribeResponse{Producer: &commonv1.ProducerRef{
		Name: "conform-refmodel", Version: Version, Source: "github.com/agentconform/conform/refplugin/model",
		Category: cat, ProtocolVersion: 1,
	}}, nil
}

// Configure takes the api key (required, secret) and rejects a
// configuration without one at once, as an auth error.
func (p *Provider) Configure(ctx context.Context, req *modelv1.ConfigureRequest) (*modelv1.ConfigureResponse, error) {
	cfg := req.GetConfig().AsMap()
	key, _ := cfg["api_key"].(string)
	if key == "" && !p.faults.ConfigureAcceptsMissing && !p.faults.NoConfigSchema {
		return nil, p.statusErr(modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_AUTH_ERROR, `configuration attribute "api_key" is required`)
	}
	p.mu.Lock()
	p.apiKey = key
	p.mu.Unlock()
	msg := "configured"
	if p.faults.SecretInLog {
		msg += " with api key " + key
	}
	p.log(ctx, msg)
	return &modelv1.ConfigureResponse{}, nil
}

// CountTokens counts words: the echo model's tokens.
func (p *Provider) CountTokens(_ context.Context, req *modelv1.CountTokensRequest) (*modelv1.CountTokensResponse, error) {
	if p.spec(req.GetModelId()) == nil {
		return nil, p.statusErr(modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_INVALID_REQUEST, fmt.Sprintf("no model %q", req.GetModelId()))
	}
	n := int64(len(strings.Fields(req.GetText())))
	if p.faults.CountZero {
		n = 0
	}
	return &modelv1.CountTokensResponse{Count: n}, nil
}

// Render shows an emitted usage payload as a line of text.
func (p *Provider) Render(_ context.Context, req *modelv1.RenderRequest) (*modelv1.RenderResponse, error) {
	if p.faults.RenderFails {
		return nil, status.Error(codes.Internal, "render: not today")
	}
	if req.GetSchemaVersion() != PayloadSchema {
		return nil, p.statusErr(modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_INVALID_REQUEST, fmt.Sprintf("schema_version %q is not %q", req.GetSchemaVersion(), PayloadSchema))
	}
	var u struct {
		Model  string `json:"model"`
		Input  int64  `json:"input_tokens"`
		Output int64  `json:"output_tokens"`
	}
	if err := json.Unmarshal(req.GetPayload(), &u); err != nil {
		return nil, p.statusErr(modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_INVALID_REQUEST, "payload is not a usage record: "+err.Error())
	}
	line := fmt.Sprintf("%s: %d tokens in, %d out", u.Model, u.Input, u.Output)
	return &modelv1.RenderResponse{Tree: &renderv1.RenderTree{Root: &renderv1.RenderNode{
		Node: &renderv1.RenderNode_Text{Text: &renderv1.TextNode{Content: line, Style: renderv1.TextStyle_TEXT_STYLE_DIM.Enum()}},
	}}}, nil
}

// modelError is a classified error, with a vendor-style raw body.
func (p *Provider) modelError(cat modelv1.ModelErrorCategory, msg string) *modelv1.ModelError {
	me := &modelv1.ModelError{Category: cat, Message: msg, Retryable: cat == modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_RATE_LIMITED || cat == modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_OVERLOADED}
	if !p.faults.NoRawDetail {
		body := map[string]any{"type": "error", "error": map[string]any{"type": strings.ToLower(strings.TrimPrefix(cat.String(), "MODEL_ERROR_CATEGORY_")), "message": msg}}
		if p.faults.SecretInVendorError {
			p.mu.Lock()
			body["request"] = map[string]any{"headers": map[string]any{"x-api-key": p.apiKey}}
			p.mu.Unlock()
		}
		b, _ := json.Marshal(body)
		me.RawDetail = proto.String(string(b))
	}
	if p.faults.EmptyErrorMessage {
		me.Message = ""
	}
	return me
}

// codeOf is the gRPC code a category maps to (model/conformance.md).
func codeOf(cat modelv1.ModelErrorCategory) codes.Code {
	switch cat {
	case modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_CONTEXT_LENGTH_EXCEEDED, modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_RATE_LIMITED:
		return codes.ResourceExhausted
	case modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_OVERLOADED:
		return codes.Unavailable
	case modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_AUTH_ERROR:
		return codes.Unauthenticated
	case modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_INVALID_REQUEST:
		return codes.InvalidArgument
	case modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_CONTENT_FILTERED:
		return codes.FailedPrecondition
	}
	return codes.Internal
}

// statusErr is a gRPC status of the category's code carrying the
// ModelError.
func (p *Provider) statusErr(cat modelv1.ModelErrorCategory, msg string) error {
	me := p.modelError(cat, msg)
	st, err := status.New(codeOf(cat), msg).WithDetails(me)
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	return st.Err()
}

// log sends one entry through the kernel callback service, dialling it on
// first use; a kernel that serves none only costs the entry.
func (p *Provider) log(ctx context.Context, msg string) {
	if k := p.callback(); k != nil {
		_, _ = k.Log(ctx, &kernelv1.LogRequest{Entries: []*logv1.LogEntry{{Level: logv1.LogLevel_LOG_LEVEL_INFO, Logger: "refmodel", Message: msg}}})
	}
}

// emit sends a usage payload for the frontend, rendered by Render.
func (p *Provider) emit(ctx context.Context, session, modelID string, in, out int64) {
	k := p.callback()
	if k == nil {
		return
	}
	b, _ := json.Marshal(map[string]any{"model": modelID, "input_tokens": in, "output_tokens": out})
	_, _ = k.Emit(ctx, &kernelv1.EmitRequest{SessionId: session, Kind: kernelv1.EventKind_EVENT_KIND_MESSAGE, SchemaVersion: PayloadSchema, Payload: b})
}

// flood writes 200 lines to stderr and 20 entries to the Log callback on
// every stream (the LogFlood fault): over a run that is thousands of each,
// past the warning's threshold, at one callback per stream — 2000 lines and
// 100 callbacks per stream made streams outlast a 3 s call timeout on a
// busy machine.
func (p *Provider) flood(ctx context.Context) {
	var entries []*logv1.LogEntry
	for i := 0; i < 200; i++ {
		fmt.Fprintf(os.Stderr, "refmodel: debug line %d of a flood\n", i)
		if i%10 == 0 {
			entries = append(entries, &logv1.LogEntry{Level: logv1.LogLevel_LOG_LEVEL_DEBUG, Logger: "refmodel", Message: fmt.Sprintf("flood %d", i)})
		}
	}
	if k := p.callback(); k != nil {
		_, _ = k.Log(ctx, &kernelv1.LogRequest{Entries: entries})
	}
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
