// Package refkit is what conform's reference context and memory providers
// share: the go-plugin serving under a category's plugin key, the kernel
// callback service dialled on broker stream 1 (CountTokens above all),
// and statuses carrying a category's error detail.
package refkit

import (
	"context"
	"errors"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	kernelv1 "github.com/agentconform/conform/api/gen/pluggableharness/kernel/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	renderv1 "github.com/agentconform/conform/api/gen/pluggableharness/render/v1"
	"github.com/agentconform/conform/refplugin"
)

// Serve serves register under plugin key key on this process's stdio; it
// returns when the host is done.
func Serve(key string, register func(*plugin.GRPCBroker, *grpc.Server)) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: refplugin.Handshake,
		Plugins:         plugin.PluginSet{key: &grpcPlugin{register: register}},
		GRPCServer:      plugin.DefaultGRPCServer,
	})
}

type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	register func(*plugin.GRPCBroker, *grpc.Server)
}

func (g *grpcPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	g.register(broker, s)
	return nil
}

func (g *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("a reference provider is never a host")
}

// Kernel dials the kernel callback service on first use.
type Kernel struct {
	Broker *plugin.GRPCBroker
	mu     sync.Mutex
	client kernelv1.KernelCallbackServiceClient
}

func (k *Kernel) get() (kernelv1.KernelCallbackServiceClient, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.client == nil {
		if k.Broker == nil {
			return nil, errors.New("no kernel callback service")
		}
		conn, err := k.Broker.Dial(1)
		if err != nil {
			return nil, err
		}
		k.client = kernelv1.NewKernelCallbackServiceClient(conn)
	}
	return k.client, nil
}

// Count asks the kernel's CountTokens for text, naming the model.
func (k *Kernel) Count(ctx context.Context, model, text string) (int64, error) {
	c, err := k.get()
	if err != nil {
		return 0, err
	}
	res, err := c.CountTokens(ctx, &kernelv1.CountTokensRequest{
		Content:  []*contentv1.ContentBlock{Text(text)},
		ModelRef: &modelv1.ModelRef{Provider: "conform", Id: model},
	})
	if err != nil {
		return 0, err
	}
	return res.GetCount(), nil
}

// Fit cuts text to the longest prefix (on a rune boundary) whose count
// fits budget, asking the kernel for each count; ok is false when not
// even one character fits.
func (k *Kernel) Fit(ctx context.Context, model, text string, budget int64) (fit string, tokens int64, ok bool, err error) {
	n, err := k.Count(ctx, model, text)
	if err != nil || n <= budget {
		return text, n, err == nil, err
	}
	runes := []rune(text)
	lo, hi := 0, len(runes) // lo fits (0 runes), hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		c, err := k.Count(ctx, model, string(runes[:mid]))
		if err != nil {
			return "", 0, false, err
		}
		if c <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return "", 0, false, nil
	}
	fit = string(runes[:lo])
	tokens, err = k.Count(ctx, model, fit)
	return fit, tokens, err == nil, err
}

// Text is a text content block.
func Text(s string) *contentv1.ContentBlock {
	return &contentv1.ContentBlock{Block: &contentv1.ContentBlock_Text{Text: &contentv1.TextBlock{Text: s}}}
}

// Status is a gRPC status with code c carrying detail.
func Status(c codes.Code, msg string, detail protoadapt.MessageV1) error {
	st, err := status.New(c, msg).WithDetails(detail)
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	return st.Err()
}

// Plain is a gRPC status with no detail (a fault: an unclassified error).
func Plain(c codes.Code, msg string) error { return status.Error(c, msg) }

// TextTree is a render tree of one text node.
func TextTree(text string) *renderv1.RenderTree {
	return &renderv1.RenderTree{Root: &renderv1.RenderNode{Node: &renderv1.RenderNode_Text{Text: &renderv1.TextNode{Content: text}}}}
}

// CountModel asks the kernel's CountTokens for text, naming model (or no
// model when ""; the kernel then answers its fallback heuristic).
func (k *Kernel) CountModel(ctx context.Context, model, text string) (int64, error) {
	if model != "" {
		return k.Count(ctx, model, text)
	}
	c, err := k.get()
	if err != nil {
		return 0, err
	}
	res, err := c.CountTokens(ctx, &kernelv1.CountTokensRequest{Content: []*contentv1.ContentBlock{Text(text)}})
	if err != nil {
		return 0, err
	}
	return res.GetCount(), nil
}
