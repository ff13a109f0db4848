package refcontext

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	configv1 "github.com/agentconform/conform/api/gen/pluggableharness/config/v1"
	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	slashcommandv1 "github.com/agentconform/conform/api/gen/pluggableharness/slashcommand/v1"
	"github.com/agentconform/conform/refplugin/refkit"
)

// Name is the provider name its sections carry (and Describe reports).
const Name = "conform-refcontext"

// DefaultBudget is the declared default_token_budget.
const DefaultBudget = 120

// Provider is the reference context provider. Use New.
type Provider struct {
	contextv1.UnimplementedContextServiceServer
	f      Faults
	kernel *refkit.Kernel

	mu     sync.Mutex
	path   string
	apiKey string
	capsN  int
}

// New returns a provider with faults f.
func New(f Faults) *Provider { return &Provider{f: f, kernel: &refkit.Kernel{}} }

// Serve serves a provider with faults f on stdio under plugin key context.
func Serve(f Faults) {
	refkit.Serve("context", func(b *plugin.GRPCBroker, s *grpc.Server) {
		p := New(f)
		p.kernel.Broker = b
		contextv1.RegisterContextServiceServer(s, p)
	})
}

// GetCapabilities declares the fixed properties.
func (p *Provider) GetCapabilities(context.Context, *contextv1.GetCapabilitiesRequest) (*contextv1.GetCapabilitiesResponse, error) {
	p.mu.Lock()
	p.capsN++
	n := p.capsN
	p.mu.Unlock()
	caps := &contextv1.ContextCapabilities{
		DefaultTokenBudget: DefaultBudget,
		Stability:          contentv1.Stability_STABILITY_STATIC,
		Compactor:          p.f.Compactor,
		ConfigSchema: &configv1.ConfigSchema{Attributes: []*configv1.ConfigAttribute{
			{Name: "path", Type: configv1.AttrType_ATTR_TYPE_STRING, Required: true, Description: "the convention file to read"},
			{Name: "api_key", Type: configv1.AttrType_ATTR_TYPE_STRING, Required: true, Sensitive: true, Description: "a secret the provider must never echo"},
		}},
		SlashCommands: []*slashcommandv1.SlashCommandSpec{{Name: "conventions", Description: "show the project conventions", Dispatch: slashcommandv1.Dispatch_DISPATCH_PROMPT_EXPANSION, Template: proto.String("Summarize the project conventions.")}},
	}
	switch {
	case p.f.NoDefaultBudget:
		caps.DefaultTokenBudget = 0
	case p.f.StabilityUnspecified:
		caps.Stability = contentv1.Stability_STABILITY_UNSPECIFIED
	case p.f.CapabilitiesDrift:
		caps.SlashCommands[0].Description = fmt.Sprintf("show the project conventions (asked %d times)", n)
	case p.f.NoConfigSchema:
		caps.ConfigSchema = nil
	}
	return &contextv1.GetCapabilitiesResponse{Capabilities: caps}, nil
}

// Describe reports the build's identity.
func (p *Provider) Describe(context.Context, *contextv1.DescribeRequest) (*contextv1.DescribeResponse, error) {
	cat := commonv1.Category_CATEGORY_CONTEXT
	if p.f.DescribeWrongCategory {
		cat = commonv1.Category_CATEGORY_MEMORY
	}
	return &contextv1.DescribeResponse{Producer: &commonv1.ProducerRef{Name: Name, Version: "0.1.0", Source: "github.com/agentconform/conform/refplugin/refcontext", Category: cat, ProtocolVersion: 1}}, nil
}

// Configure takes the path (which must name a file) and the secret.
func (p *Provider) Configure(_ context.Context, req *contextv1.ConfigureRequest) (*contextv1.ConfigureResponse, error) {
	cfg := req.GetConfig().AsMap()
	path, _ := cfg["path"].(string)
	key, _ := cfg["api_key"].(string)
	if p.f.FloodStderr {
		// Bytes, not lines, make a flood (provkit.FloodStderrBytes): 640
		// lines of 2 KiB pass the limit without 40,000 writes, which on a
		// busy machine outlasted the Configure call timeout and turned the
		// flood into a hang.
		pad := strings.Repeat("x", 2048)
		for i := range 640 {
			fmt.Fprintf(os.Stderr, "refcontext: flood line %d of 640 %s\n", i, pad)
		}
	}
	if p.f.SecretInStderr {
		fmt.Fprintln(os.Stderr, "refcontext: api_key is", key)
	}
	for _, name := range []string{"path", "api_key"} {
		if v, _ := cfg[name].(string); v == "" && !p.f.AcceptsMissing && !p.f.NoConfigSchema {
			return nil, p.fail(codes.InvalidArgument, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_INVALID_REQUEST, fmt.Sprintf("configuration attribute %q is required", name))
		}
	}
	if path != "" {
		if _, err := os.Stat(path); err != nil && !p.f.AcceptsMissingSource {
			msg := "source " + filepath.Base(path) + " resolves to nothing on disk"
			if p.f.SecretInError {
				msg += " (api_key " + key + ")"
			}
			return nil, p.fail(codes.Unavailable, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_SOURCE_UNAVAILABLE, msg)
		}
	}
	p.mu.Lock()
	p.path, p.apiKey = path, key
	p.mu.Unlock()
	return &contextv1.ConfigureResponse{}, nil
}

// fail is a ContextError on its category's code (or broken by a fault).
func (p *Provider) fail(c codes.Code, cat contextv1.ContextErrorCategory, msg string) error {
	if p.f.CodeUnknown {
		c = codes.Unknown
	}
	if p.f.NoErrorDetail {
		return refkit.Plain(c, msg)
	}
	return refkit.Status(c, msg, &contextv1.ContextError{Category: cat, Message: msg, Retryable: cat == contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_SOURCE_UNAVAILABLE || p.f.AllRetryable})
}

var (
	frontMatter = regexp.MustCompile(`(?s)\A---\n.*?\n---\n`)
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->\n?`)
)

// read is the source's text, front matter and comments stripped.
func (p *Provider) read() (string, error) {
	p.mu.Lock()
	path := p.path
	p.mu.Unlock()
	if path == "" {
		return "Project conventions: none configured.", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	text := string(b)
	if !p.f.KeepsComments {
		text = htmlComment.ReplaceAllString(frontMatter.ReplaceAllString(text, ""), "")
	}
	return strings.TrimSpace(text), nil
}

// Contribute appends this provider's sections to the chain (or, as a
// compactor, fits the whole chain).
func (p *Provider) Contribute(ctx context.Context, req *contextv1.ContextRequest) (*contextv1.ContextContribution, error) {
	if p.f.HangContribute {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	switch {
	case req.GetTokenBudget() <= 0, req.GetModelTarget() == nil, req.GetSessionId() == "", req.GetTurnId() == "":
		if p.f.MalformedAsUnknown {
			return nil, p.fail(codes.Internal, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN, "cannot handle this request")
		}
		return nil, p.fail(codes.InvalidArgument, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_INVALID_REQUEST, "the request needs a positive token_budget, a model_target, a session_id and a turn_id")
	}
	text, err := p.read()
	if err != nil {
		return nil, p.fail(codes.Unavailable, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_SOURCE_UNAVAILABLE, "the source is unreadable: "+err.Error())
	}
	if p.f.StaticDrifts {
		text = "(turn " + req.GetTurnId() + ") " + text
	}
	parts := []struct{ label, text string }{{"Project conventions", text}}
	if len(req.GetFilesTouched()) > 0 {
		parts = append(parts, struct{ label, text string }{"Files touched so far", "The session has touched: " + strings.Join(req.GetFilesTouched(), ", ") + "."})
	}
	if p.f.Compactor {
		return p.compact(ctx, req, parts)
	}
	model := req.GetModelTarget().GetId()
	left := req.GetTokenBudget()
	// The newly relevant, small files section is fitted first, so a full
	// conventions file cannot crowd it out; the chain keeps the
	// conventions first.
	own := make([]*contentv1.ContextSection, len(parts))
	for i := len(parts) - 1; i >= 0; i-- {
		sec, err := p.section(ctx, model, parts[i].label, parts[i].text, left)
		if err != nil {
			return nil, err
		}
		if sec != nil {
			left -= sec.GetTokens()
		}
		own[i] = sec
	}
	own = slices.DeleteFunc(own, func(s *contentv1.ContextSection) bool { return s == nil })
	out := &contextv1.ContextContribution{}
	if !p.f.Delta {
		for i, s := range req.GetPriorSections() {
			s = proto.Clone(s).(*contentv1.ContextSection)
			if p.f.MutatesPrior && i == 0 {
				s.Label += " (seen)"
			}
			out.Sections = append(out.Sections, s)
		}
	}
	out.Sections = append(out.Sections, own...)
	if p.f.RewritesHistory {
		out.RewrittenHistory = []*contentv1.Message{{Role: contentv1.Role_ROLE_USER, Content: []*contentv1.ContentBlock{refkit.Text("(history dropped)")}}}
	}
	return out, nil
}

// section is one own section cut to fit left tokens, or nil when nothing
// of it fits.
func (p *Provider) section(ctx context.Context, model, label, text string, left int64) (*contentv1.ContextSection, error) {
	var tokens int64
	truncated := false
	switch {
	case p.f.HeuristicTokens:
		runes := []rune(text)
		for len(runes) > 0 && int64((len(string(runes))+3)/4) > left {
			runes = runes[:len(runes)-1]
			truncated = true
		}
		text, tokens = string(runes), int64((len(string(runes))+3)/4)
		if text == "" {
			return nil, nil
		}
	case p.f.IgnoresBudget:
		n, err := p.kernel.Count(ctx, model, text)
		if err != nil {
			return nil, p.fail(codes.Internal, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN, "CountTokens failed: "+err.Error())
		}
		tokens = n
	default:
		full, err := p.kernel.Count(ctx, model, text)
		if err != nil {
			return nil, p.fail(codes.Internal, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN, "CountTokens failed: "+err.Error())
		}
		if full > left && p.f.ErrorsUnderPressure {
			return nil, p.fail(codes.FailedPrecondition, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_BUDGET_EXCEEDED, fmt.Sprintf("the section needs %d tokens, the budget is %d", full, left))
		}
		fit, n, ok, err := p.kernel.Fit(ctx, model, text, left)
		if err != nil {
			return nil, p.fail(codes.Internal, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN, "CountTokens failed: "+err.Error())
		}
		if !ok {
			return nil, nil
		}
		text, tokens, truncated = fit, n, fit != text
	}
	sec := &contentv1.ContextSection{Provider: Name, Label: label, Content: []*contentv1.ContentBlock{refkit.Text(text)}, Tokens: tokens, Stability: contentv1.Stability_STABILITY_STATIC, Truncated: truncated != p.f.TruncatedUnmarked}
	if p.f.NoProviderName {
		sec.Provider = ""
	}
	if p.f.NoLabel {
		sec.Label = ""
	}
	if p.f.SectionUnspecified {
		sec.Stability = contentv1.Stability_STABILITY_UNSPECIFIED
	}
	if p.f.ImageBlock {
		sec.Content = append(sec.Content, &contentv1.ContentBlock{Block: &contentv1.ContentBlock_Image{Image: &contentv1.ImageBlock{Data: []byte{0x89, 'P', 'N', 'G'}, MediaType: "image/png"}}})
	}
	return sec, nil
}

// Render draws a section it contributed (or any section) as a collapsed
// text node; a payload that is no section is an unknown error carrying the
// decoder's own message.
func (p *Provider) Render(_ context.Context, req *contextv1.RenderRequest) (*contextv1.RenderResponse, error) {
	if p.f.RenderFails {
		return nil, p.fail(codes.Internal, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN, "render failed")
	}
	var sec contentv1.ContextSection
	if err := proto.Unmarshal(req.GetPayload(), &sec); err != nil || (sec.GetLabel() == "" && len(sec.GetContent()) == 0) {
		msg := "the payload is not a context section"
		if err != nil {
			msg = err.Error()
		}
		if p.f.UnknownNoMessage {
			msg = ""
		}
		return nil, p.fail(codes.Internal, contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN, msg)
	}
	var b strings.Builder
	for _, c := range sec.GetContent() {
		b.WriteString(c.GetText().GetText())
	}
	return &contextv1.RenderResponse{Tree: refkit.TextTree(sec.GetLabel() + ": " + b.String())}, nil
}
