package refmemory

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	configv1 "github.com/agentconform/conform/api/gen/pluggableharness/config/v1"
	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	hookv1 "github.com/agentconform/conform/api/gen/pluggableharness/hook/v1"
	memoryv1 "github.com/agentconform/conform/api/gen/pluggableharness/memory/v1"
	slashcommandv1 "github.com/agentconform/conform/api/gen/pluggableharness/slashcommand/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/refplugin/refkit"
)

// Name is the provider name (Describe's, and provenance's recorded_by).
const Name = "conform-refmemory"

// Supported are the types and scopes it handles.
var (
	Types  = []memoryv1.MemoryType{memoryv1.MemoryType_MEMORY_TYPE_USER, memoryv1.MemoryType_MEMORY_TYPE_FEEDBACK, memoryv1.MemoryType_MEMORY_TYPE_PROJECT}
	Scopes = []memoryv1.MemoryScope{memoryv1.MemoryScope_MEMORY_SCOPE_SESSION, memoryv1.MemoryScope_MEMORY_SCOPE_PROJECT}
)

// Provider is the reference memory provider. Use New.
type Provider struct {
	memoryv1.UnimplementedMemoryServiceServer
	f      Faults
	kernel *refkit.Kernel

	mu      sync.Mutex
	records map[string]*memoryv1.MemoryRecord
	seq     int64

	keyMu  sync.Mutex // apart from mu: an error message may quote it under mu
	apiKey string
}

// New returns a provider with faults f.
func New(f Faults) *Provider {
	return &Provider{f: f, kernel: &refkit.Kernel{}, records: map[string]*memoryv1.MemoryRecord{}}
}

// Serve serves a provider with faults f on stdio under plugin key memory,
// with its hook subscriber and tool advertisement on the same connection.
func Serve(f Faults) {
	refkit.Serve("memory", func(b *plugin.GRPCBroker, s *grpc.Server) {
		p := New(f)
		p.kernel.Broker = b
		memoryv1.RegisterMemoryServiceServer(s, p)
		hookv1.RegisterHookSubscriberServiceServer(s, &hooks{p: p})
		toolv1.RegisterToolServiceServer(s, &tools{})
	})
}

// GetCapabilities declares what it supports.
func (p *Provider) GetCapabilities(context.Context, *memoryv1.GetCapabilitiesRequest) (*memoryv1.GetCapabilitiesResponse, error) {
	caps := &memoryv1.MemoryCapabilities{
		DefaultTokenBudget:    200,
		SupportedTypes:        slices.Clone(Types),
		SupportedScopes:       slices.Clone(Scopes),
		RatificationSupported: p.f.Ratify,
		ConfigSchema: &configv1.ConfigSchema{Attributes: []*configv1.ConfigAttribute{
			{Name: "api_key", Type: configv1.AttrType_ATTR_TYPE_STRING, Required: true, Sensitive: true, Description: "a secret the provider must never echo"},
		}},
		SlashCommands:       []*slashcommandv1.SlashCommandSpec{{Name: "memories", Description: "list what is remembered", Dispatch: slashcommandv1.Dispatch_DISPATCH_PROMPT_EXPANSION, Template: proto.String("List the memories.")}},
		SupportedHookPoints: []commonv1.HookPoint{commonv1.HookPoint_HOOK_POINT_POST_MODEL_RESPONSE, commonv1.HookPoint_HOOK_POINT_SESSION_END},
	}
	switch {
	case p.f.NoDefaultBudget:
		caps.DefaultTokenBudget = 0
	case p.f.DuplicateType:
		caps.SupportedTypes = append(caps.SupportedTypes, caps.SupportedTypes[0])
	case p.f.DuplicateScope:
		caps.SupportedScopes = append(caps.SupportedScopes, caps.SupportedScopes[0])
	case p.f.NoConfigSchema:
		caps.ConfigSchema = nil
	case p.f.NoHooks:
		caps.SupportedHookPoints = nil
	}
	return &memoryv1.GetCapabilitiesResponse{Capabilities: caps}, nil
}

// Describe reports the build's identity.
func (p *Provider) Describe(context.Context, *memoryv1.DescribeRequest) (*memoryv1.DescribeResponse, error) {
	cat := commonv1.Category_CATEGORY_MEMORY
	if p.f.DescribeWrongCategory {
		cat = commonv1.Category_CATEGORY_CONTEXT
	}
	return &memoryv1.DescribeResponse{Producer: &commonv1.ProducerRef{Name: Name, Version: "0.1.0", Source: "github.com/agentconform/conform/refplugin/refmemory", Category: cat, ProtocolVersion: 1}}, nil
}

// Configure takes the secret.
func (p *Provider) Configure(_ context.Context, req *memoryv1.ConfigureRequest) (*memoryv1.ConfigureResponse, error) {
	key, _ := req.GetConfig().AsMap()["api_key"].(string)
	if p.f.SecretInStderr {
		fmt.Fprintln(os.Stderr, "refmemory: api_key is", key)
	}
	if key == "" && !p.f.AcceptsMissing && !p.f.NoConfigSchema {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_INVALID_TYPE, codes.InvalidArgument, `configuration attribute "api_key" is required`)
	}
	p.keyMu.Lock()
	p.apiKey = key
	p.keyMu.Unlock()
	return &memoryv1.ConfigureResponse{}, nil
}

func (p *Provider) fail(cat memoryv1.MemoryErrorCategory, c codes.Code, msg string) error {
	if p.f.CodeUnknown {
		c = codes.Unknown
	}
	if p.f.NoErrorDetail {
		return refkit.Plain(c, msg)
	}
	return refkit.Status(c, msg, &memoryv1.MemoryError{Category: cat, Message: msg, Retryable: cat == memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_SOURCE_UNAVAILABLE})
}

func (p *Provider) notFound(id string) error {
	msg := fmt.Sprintf("no record %q", id)
	if p.f.SecretInError {
		p.keyMu.Lock()
		msg += " (store key " + p.apiKey + ")"
		p.keyMu.Unlock()
	}
	return p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_NOT_FOUND, codes.NotFound, msg)
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugOf derives a kebab-case id from a title.
func slugOf(title string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if s == "" {
		s = "memory"
	}
	return s
}

// count asks the kernel for a count; model "" is the fallback heuristic.
func (p *Provider) count(ctx context.Context, model string, blocks []*contentv1.ContentBlock) (int64, error) {
	var b strings.Builder
	for _, c := range blocks {
		b.WriteString(c.GetText().GetText())
	}
	if p.f.HeuristicTokens {
		return int64((b.Len() + 3) / 4), nil
	}
	return p.kernel.CountModel(ctx, model, b.String())
}

var danglingLink = regexp.MustCompile(`\[\[([^\]]+)\]\]`)

// dangling names a [[link]] in blocks that names no record.
func (p *Provider) dangling(blocks []*contentv1.ContentBlock) string {
	for _, b := range blocks {
		for _, m := range danglingLink.FindAllStringSubmatch(b.GetText().GetText(), -1) {
			if _, ok := p.records[m[1]]; !ok {
				return m[1]
			}
		}
	}
	return ""
}

// Record creates a record.
func (p *Provider) Record(ctx context.Context, req *memoryv1.RecordRequest) (*memoryv1.RecordResponse, error) {
	if !slices.Contains(Types, req.GetType()) && !p.f.AcceptsUnsupportedType {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_INVALID_TYPE, codes.InvalidArgument, "type "+req.GetType().String()+" is not supported")
	}
	if !slices.Contains(Scopes, req.GetScope()) && !p.f.AcceptsUnsupportedScope {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_INVALID_SCOPE, codes.InvalidArgument, "scope "+req.GetScope().String()+" is not supported")
	}
	tokens, err := p.count(ctx, "", req.GetContent())
	if err != nil {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN, codes.Internal, "CountTokens failed: "+err.Error())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.dangling(req.GetContent()); l != "" && p.f.RejectsDanglingLinks {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN, codes.Internal, "link [["+l+"]] names no record")
	}
	base := req.GetId()
	if base == "" {
		base = slugOf(req.GetTitle())
	}
	p.seq++
	if p.f.OpaqueIDs && req.Id == nil {
		base = fmt.Sprintf("Rec_%04d", p.seq)
	}
	id := base
	for n := 2; p.records[id] != nil; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	status := memoryv1.RecordStatus_RECORD_STATUS_CANONICAL
	if p.f.Ratify {
		status = memoryv1.RecordStatus_RECORD_STATUS_PENDING
	}
	now := timestamppb.New(time.Unix(1_700_000_000+p.seq, 0))
	p.records[id] = &memoryv1.MemoryRecord{
		Id: id, Type: req.GetType(), Scope: req.GetScope(), Title: req.GetTitle(), Content: req.GetContent(), Tokens: tokens,
		Status: status, CreatedAt: now, UpdatedAt: now, Provenance: &memoryv1.Provenance{RecordedBy: Name},
	}
	answered := status
	switch {
	case p.f.StatusUnspecified:
		answered = memoryv1.RecordStatus_RECORD_STATUS_UNSPECIFIED
	case p.f.AnswersPending:
		answered = memoryv1.RecordStatus_RECORD_STATUS_PENDING
	}
	return &memoryv1.RecordResponse{Result: &memoryv1.RecordResult{Id: id, Status: answered}}, nil
}

// GetRecord answers one record.
func (p *Provider) GetRecord(_ context.Context, req *memoryv1.GetRecordRequest) (*memoryv1.GetRecordResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rec, ok := p.records[req.GetId()]
	if !ok {
		if p.f.GetUnknownEmpty {
			return &memoryv1.GetRecordResponse{Record: &memoryv1.MemoryRecord{}}, nil
		}
		return nil, p.notFound(req.GetId())
	}
	out := proto.Clone(rec).(*memoryv1.MemoryRecord)
	if p.f.GetWrongTitle {
		out.Title = strings.ToUpper(out.Title)
	}
	if p.f.RelevanceOnGet {
		out.RelevanceScore = proto.Float64(0.5)
	}
	return &memoryv1.GetRecordResponse{Record: out}, nil
}

// UpdateRecord replaces a record's content (and title, when given).
func (p *Provider) UpdateRecord(ctx context.Context, req *memoryv1.UpdateRecordRequest) (*memoryv1.UpdateRecordResponse, error) {
	content := req.GetContent()
	p.mu.Lock()
	rec, ok := p.records[req.GetId()]
	p.mu.Unlock()
	if !ok {
		if p.f.UpdateUnknownNoop {
			return &memoryv1.UpdateRecordResponse{Result: &memoryv1.RecordResult{Id: req.GetId(), Status: memoryv1.RecordStatus_RECORD_STATUS_CANONICAL}}, nil
		}
		return nil, p.notFound(req.GetId())
	}
	if p.f.UpdatePatches {
		content = append(slices.Clone(rec.GetContent()), content...)
	}
	tokens, err := p.count(ctx, "", content)
	if err != nil {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN, codes.Internal, "CountTokens failed: "+err.Error())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.dangling(req.GetContent()); l != "" && p.f.RejectsDanglingLinks {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN, codes.Internal, "link [["+l+"]] names no record")
	}
	p.seq++
	rec.Content, rec.Tokens, rec.UpdatedAt = content, tokens, timestamppb.New(time.Unix(1_700_000_000+p.seq, 0))
	if req.Title != nil {
		rec.Title = req.GetTitle()
	}
	if p.f.UpdateChangesType {
		rec.Type = Types[(slices.Index(Types, rec.GetType())+1)%len(Types)]
	}
	if p.f.ProvenanceChanges {
		rec.Provenance = &memoryv1.Provenance{RecordedBy: "update"}
	}
	return &memoryv1.UpdateRecordResponse{Result: &memoryv1.RecordResult{Id: rec.GetId(), Status: rec.GetStatus()}}, nil
}

// DeleteRecord removes a record.
func (p *Provider) DeleteRecord(_ context.Context, req *memoryv1.DeleteRecordRequest) (*memoryv1.DeleteRecordResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.records[req.GetId()]; !ok {
		if p.f.DeleteUnknownNoop {
			return &memoryv1.DeleteRecordResponse{Result: &memoryv1.DeleteResult{Deleted: false}}, nil
		}
		return nil, p.notFound(req.GetId())
	}
	if !p.f.DeleteKeeps {
		delete(p.records, req.GetId())
	}
	return &memoryv1.DeleteRecordResponse{Result: &memoryv1.DeleteResult{Deleted: true}}, nil
}

// ApproveRecord makes a pending record canonical.
func (p *Provider) ApproveRecord(_ context.Context, req *memoryv1.ApproveRecordRequest) (*memoryv1.ApproveRecordResponse, error) {
	if !p.f.Ratify && !p.f.RatifyAccepted {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_RATIFICATION_UNSUPPORTED, codes.FailedPrecondition, "this provider writes every record canonical; there is nothing to approve")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	rec, ok := p.records[req.GetId()]
	if !ok {
		if p.f.RatifyAccepted {
			return &memoryv1.ApproveRecordResponse{Result: &memoryv1.RecordResult{Id: req.GetId(), Status: memoryv1.RecordStatus_RECORD_STATUS_CANONICAL}}, nil
		}
		return nil, p.notFound(req.GetId())
	}
	if !p.f.ApproveNoop {
		rec.Status = memoryv1.RecordStatus_RECORD_STATUS_CANONICAL
	}
	return &memoryv1.ApproveRecordResponse{Result: &memoryv1.RecordResult{Id: rec.GetId(), Status: memoryv1.RecordStatus_RECORD_STATUS_CANONICAL}}, nil
}

// RejectRecord discards a pending draft entirely.
func (p *Provider) RejectRecord(_ context.Context, req *memoryv1.RejectRecordRequest) (*memoryv1.RejectRecordResponse, error) {
	if !p.f.Ratify && !p.f.RatifyAccepted {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_RATIFICATION_UNSUPPORTED, codes.FailedPrecondition, "this provider writes every record canonical; there is nothing to reject")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.records[req.GetId()]; !ok {
		if p.f.RatifyAccepted {
			return &memoryv1.RejectRecordResponse{Result: &memoryv1.DeleteResult{Deleted: true}}, nil
		}
		return nil, p.notFound(req.GetId())
	}
	if !p.f.RejectSoft {
		delete(p.records, req.GetId())
	}
	return &memoryv1.RejectRecordResponse{Result: &memoryv1.DeleteResult{Deleted: true}}, nil
}

// sorted are the records, newest first.
func (p *Provider) sorted() []*memoryv1.MemoryRecord {
	out := make([]*memoryv1.MemoryRecord, 0, len(p.records))
	for _, r := range p.records {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].GetUpdatedAt().AsTime(), out[j].GetUpdatedAt().AsTime()
		if p.f.OldestFirst {
			return a.Before(b) || (a.Equal(b) && out[i].GetId() < out[j].GetId())
		}
		return a.After(b) || (a.Equal(b) && out[i].GetId() < out[j].GetId())
	})
	return out
}

func match[E comparable](filter []E, v E) bool { return len(filter) == 0 || slices.Contains(filter, v) }

// ListRecords pages through the records, newest first.
func (p *Provider) ListRecords(_ context.Context, req *memoryv1.ListRecordsRequest) (*memoryv1.ListRecordsResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var all []*memoryv1.MemoryRecord
	for _, r := range p.sorted() {
		switch {
		case !p.f.ListIgnoresFilter && !match(req.GetTypeFilter(), r.GetType()):
		case !match(req.GetScopeFilter(), r.GetScope()):
		case req.StatusFilter != nil && r.GetStatus() != req.GetStatusFilter():
		case p.f.ListHidesPending && r.GetStatus() == memoryv1.RecordStatus_RECORD_STATUS_PENDING:
		default:
			all = append(all, r)
		}
	}
	start, _ := strconv.Atoi(req.GetPageToken())
	size := int(req.GetPageSize())
	if size <= 0 {
		size = 50
	}
	start = min(max(start, 0), len(all))
	end := min(start+size, len(all))
	out := &memoryv1.ListRecordsResponse{}
	for _, r := range all[start:end] {
		out.Records = append(out.Records, proto.Clone(r).(*memoryv1.MemoryRecord))
	}
	if end < len(all) {
		next := end
		if p.f.ListRepeats {
			next = end - 1
		}
		out.NextPageToken = strconv.Itoa(next)
	}
	return out, nil
}

// Recall answers the newest matching records that fit the budget, each
// recounted for the request's model.
func (p *Provider) Recall(ctx context.Context, req *memoryv1.RecallRequest) (*memoryv1.RecallResponse, error) {
	p.mu.Lock()
	var cands []*memoryv1.MemoryRecord
	for _, r := range p.sorted() {
		switch {
		case !p.f.RecallIgnoresFilter && (!match(req.GetTypeFilter(), r.GetType()) || !match(req.GetScopeFilter(), r.GetScope())):
		case r.GetStatus() == memoryv1.RecordStatus_RECORD_STATUS_PENDING && !req.GetIncludePending() && !p.f.RecallPending:
		default:
			cands = append(cands, proto.Clone(r).(*memoryv1.MemoryRecord))
		}
	}
	p.mu.Unlock()
	out := &memoryv1.RecallResponse{}
	var used int64
	for _, r := range cands {
		n, err := p.count(ctx, req.GetModelTarget().GetId(), r.GetContent())
		if err != nil {
			return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN, codes.Internal, "CountTokens failed: "+err.Error())
		}
		if used+n > req.GetTokenBudget() && !p.f.RecallOverBudget {
			continue
		}
		used += n
		r.Tokens = n
		rank := float64(len(out.Records))
		r.RelevanceScore = proto.Float64(1 / (rank + 1))
		if p.f.RelevanceOutOfRange {
			r.RelevanceScore = proto.Float64(rank + 1.5)
		}
		if p.f.RecallDropsScope && len(req.GetScopeFilter()) == 0 {
			r.Scope = memoryv1.MemoryScope_MEMORY_SCOPE_UNSPECIFIED
		}
		out.Records = append(out.Records, r)
	}
	return out, nil
}

// Render draws a record as text; a payload that is no record is an unknown
// error carrying the decoder's message.
func (p *Provider) Render(_ context.Context, req *memoryv1.RenderRequest) (*memoryv1.RenderResponse, error) {
	if p.f.RenderFails {
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN, codes.Internal, "render failed")
	}
	var rec memoryv1.MemoryRecord
	if err := proto.Unmarshal(req.GetPayload(), &rec); err != nil || rec.GetId() == "" {
		msg := "the payload is not a memory record"
		if err != nil {
			msg = err.Error()
		}
		if p.f.UnknownNoMessage {
			msg = ""
		}
		return nil, p.fail(memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_UNKNOWN, codes.Internal, msg)
	}
	return &memoryv1.RenderResponse{Tree: refkit.TextTree("memory:" + rec.GetId() + ": " + rec.GetTitle())}, nil
}

// hooks are the autonomous write triggers: a model response that says
// "remember:" is written as a feedback record.
type hooks struct {
	hookv1.UnimplementedHookSubscriberServiceServer
	p *Provider
}

func (h *hooks) DispatchHook(ctx context.Context, req *hookv1.DispatchHookRequest) (*hookv1.DispatchHookResponse, error) {
	if m := req.GetPayload().GetPostModelResponse().GetMessage(); m != nil {
		for _, b := range m.GetContent() {
			if t := b.GetText().GetText(); strings.HasPrefix(t, "remember:") {
				_, _ = h.p.Record(ctx, &memoryv1.RecordRequest{Type: memoryv1.MemoryType_MEMORY_TYPE_FEEDBACK, Scope: memoryv1.MemoryScope_MEMORY_SCOPE_PROJECT, Title: "remembered", Content: []*contentv1.ContentBlock{refkit.Text(strings.TrimSpace(strings.TrimPrefix(t, "remember:")))}})
			}
		}
	}
	return &hookv1.DispatchHookResponse{Outcome: &hookv1.DispatchHookResponse_Observe{Observe: &hookv1.DispatchHookResponse_ObserveAck{}}}, nil
}

// tools advertises the reference memory tools.
type tools struct {
	toolv1.UnimplementedToolServiceServer
}

func (tools) GetSchema(context.Context, *toolv1.GetSchemaRequest) (*toolv1.GetSchemaResponse, error) {
	return &toolv1.GetSchemaResponse{Tools: []*toolv1.ToolSchema{
		{Name: "memory.remember", Kind: toolv1.ToolKind_TOOL_KIND_RESOURCE, Description: "Remember a fact across sessions."},
		{Name: "memory.forget", Kind: toolv1.ToolKind_TOOL_KIND_RESOURCE, Description: "Forget a remembered fact."},
		{Name: "memory.search", Kind: toolv1.ToolKind_TOOL_KIND_DATA_SOURCE, Description: "Search what is remembered."},
	}}, nil
}
