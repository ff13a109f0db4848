package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	hookv1 "github.com/agentconform/conform/api/gen/pluggableharness/hook/v1"
	kernelv1 "github.com/agentconform/conform/api/gen/pluggableharness/kernel/v1"
	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/pluginconform/callback"
)

// The upstream runtime's handshake, shared by every plugin category
// (pkg/common/plugin.go upstream). A plugin built for that ecosystem checks
// exactly these.
const (
	MagicCookieKey   = "PLUGGABLEHARNESS_AGENT_PLUGIN"
	MagicCookieValue = "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake"
	ProtocolVersion  = 1
)

// Handshake is the go-plugin handshake configuration.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   MagicCookieKey,
	MagicCookieValue: MagicCookieValue,
}

// The plugin-map keys of the categories (upstream's common.PluginKey). Over
// gRPC the key never crosses the wire: it only picks the host's side of the
// map, and a plugin shows its category by the services it registers.
const (
	KeyTool    = "tool"
	KeyModel   = "model"
	KeyContext = "context"
	KeyMemory  = "memory"
)

// Spec says what to launch.
type Spec struct {
	// Argv is the plugin's command line; Argv[0] is looked up in PATH.
	Argv []string
	// Env is the plugin's whole environment (see BaseEnv); go-plugin adds
	// the magic cookie and its own PLUGIN_* variables.
	Env []string
	// StartTimeout bounds the wait for the handshake line.
	StartTimeout time.Duration
	// Callback is served on broker stream callback.BrokerID.
	Callback kernelv1.KernelCallbackServiceServer
	// Output receives everything the plugin writes to stderr, and its
	// stdout and stderr once go-plugin has taken them over.
	Output io.Writer
	// DialOptions are added to the gRPC connection to the plugin.
	DialOptions []grpc.DialOption
	// Key is the category's plugin-map key (default KeyTool).
	Key string
}

// Plugin is a launched plugin.
type Plugin struct {
	Tool toolv1.ToolServiceClient
	Hook hookv1.HookSubscriberServiceClient
	// Conn is the gRPC connection, for the clients of other categories.
	Conn *grpc.ClientConn

	client *plugin.Client
	cmd    *exec.Cmd
	tail   *Tail
	once   sync.Once
}

// Launch starts the plugin and dispenses its category's connection (the
// tool service unless Spec.Key says otherwise). The error of a failed
// launch says what the plugin did.
func Launch(_ context.Context, s Spec) (*Plugin, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return nil, errors.New("no plugin command")
	}
	if s.StartTimeout <= 0 {
		s.StartTimeout = 10 * time.Second
	}
	if s.Key == "" {
		s.Key = KeyTool
	}
	tail := NewTail(8 << 10)
	out := io.Writer(tail)
	if s.Output != nil {
		out = io.MultiWriter(tail, s.Output)
	}
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Env = s.Env
	ownGroup(cmd)
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  Handshake,
		Plugins:          plugin.PluginSet{s.Key: &hostPlugin{callback: s.Callback}},
		Cmd:              cmd,
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     s.StartTimeout,
		Stderr:           out,
		SyncStdout:       out,
		SyncStderr:       out,
		Logger:           hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
		GRPCDialOptions:  s.DialOptions,
	})
	p := &Plugin{client: client, cmd: cmd, tail: tail}
	rpc, err := client.Client()
	if err != nil {
		return nil, p.failed("the handshake failed", err)
	}
	raw, err := rpc.Dispense(s.Key)
	if err != nil {
		return nil, p.failed(fmt.Sprintf("dispensing plugin key %q failed", s.Key), err)
	}
	conn, ok := raw.(*grpc.ClientConn)
	if !ok {
		p.Kill()
		return nil, fmt.Errorf("dispense returned %T, not a gRPC connection", raw)
	}
	p.Conn = conn
	p.Tool = toolv1.NewToolServiceClient(conn)
	p.Hook = hookv1.NewHookSubscriberServiceClient(conn)
	return p, nil
}

// failed kills the plugin and explains what it did.
func (p *Plugin) failed(what string, err error) error {
	// go-plugin has already killed a plugin that failed to start; wait a
	// moment for its exit status so the message can give it.
	deadline := time.Now().Add(2 * time.Second)
	for !p.client.Exited() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	msg := what + ": " + describeStartErr(err)
	if st := p.ExitStatus(); st != "" {
		msg += "; the plugin " + st
	}
	p.Kill()
	if t := strings.TrimSpace(p.tail.String()); t != "" {
		msg += "\nlast lines of its stderr:\n" + t
	}
	return errors.New(msg)
}

// describeStartErr rewords go-plugin's start errors for a plugin author.
func describeStartErr(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "timeout while waiting for plugin to start"):
		return "the plugin did not print its handshake line (1|1|tcp|ADDR|grpc) on stdout in time"
	case strings.Contains(s, "plugin exited before we could connect"),
		strings.Contains(s, "Failed to read any lines from plugin's stdout"):
		return "the plugin exited (or closed its stdout) before printing its handshake line"
	case strings.Contains(s, "Unrecognized remote plugin message"):
		first, _, _ := strings.Cut(s, "\n")
		return "the plugin's first line on stdout is not a go-plugin handshake line (want 1|1|tcp|ADDR|grpc): " + first
	}
	return s
}

// Exited reports whether the plugin process has ended.
func (p *Plugin) Exited() bool { return p.client.Exited() }

// ExitStatus is "exited (exit status 2)"-style text once the process has
// ended, "" while it runs.
func (p *Plugin) ExitStatus() string {
	if !p.client.Exited() || p.cmd.ProcessState == nil {
		return ""
	}
	return "exited (" + p.cmd.ProcessState.String() + ")"
}

// PID is the plugin process's id, 0 before it started.
func (p *Plugin) PID() int {
	if p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// StderrTail is the last few KiB the plugin wrote.
func (p *Plugin) StderrTail() string { return p.tail.String() }

// Kill stops the plugin (go-plugin's graceful shutdown, then a kill) and
// every process left in its process group. It is safe to call twice.
func (p *Plugin) Kill() {
	p.once.Do(func() {
		pid := p.PID()
		p.client.Kill()
		killGroup(pid)
	})
}

// hostPlugin is the kernel side of the "tool" plugin-map entry.
type hostPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	callback kernelv1.KernelCallbackServiceServer
}

func (h *hostPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("conform only launches plugins; it never serves one")
}

// GRPCClient serves the kernel callback service on the fixed broker stream
// before handing the connection out, so a plugin that dials it during
// Configure finds it.
func (h *hostPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	if h.callback != nil {
		go broker.AcceptAndServe(callback.BrokerID, func(opts []grpc.ServerOption) *grpc.Server {
			s := grpc.NewServer(opts...)
			kernelv1.RegisterKernelCallbackServiceServer(s, h.callback)
			return s
		})
	}
	return conn, nil
}
