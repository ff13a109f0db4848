package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/bridge"
	"github.com/agentconform/conform/harness/bridge/testagent"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/kernelkit"
)

// profileDirs are where `conform agent NAME` looks for NAME.json.
var profileDirs = []string{"profiles/agents", "testdata/profiles"}

// newAgentCmd is `conform run` against a coding agent through the bridge:
// the same flags and reports, with the kernel command made from the
// profile (the agent kernel inside a network namespace of its own).
func newAgentCmd() *cobra.Command {
	var f runFlags
	cmd := runCommand(&f)
	var noIsolation bool
	var binDir string
	cmd.Use = "agent NAME|PROFILE"
	cmd.Short = "Run the conformance suite against a coding agent through the bridge"
	cmd.Long = `Run the conformance suite against a coding agent (Claude Code, Codex CLI,
Gemini CLI, opencode, ...) through the bridge: conform serves the agent the
scripted model in its own HTTP dialect, the scenario's tools over MCP, its
hook system through a relay command, and records everything the agent does
as the suite records a wire kernel. NAME is a profile under profiles/agents
or testdata/profiles (NAME.json); PROFILE is a path to one.

Every agent runs, with the servers it talks to, in a network namespace of
its own holding only loopback (unshare --net, as root). Where no namespace
can be made, conform refuses unless told --no-isolation: the agent could
then reach the network and anything listening on this machine, send what it
finds there, and read or write outside its scratch folders' intent.

Every flag of conform run applies; --kernel is set by this command.`
	cmd.Args = cobra.ExactArgs(1)
	cmd.Flags().BoolVar(&noIsolation, "no-isolation", false, "run the agent without a network namespace (it could reach the network: never for an agent you do not trust)")
	cmd.Flags().StringVar(&binDir, "bin-dir", ".agents/node_modules/.bin", "where the profile's package binary was installed (make agents)")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if c.Flags().Changed("kernel") {
			return usage("conform agent sets --kernel itself")
		}
		path, err := bridge.ResolveProfile(args[0], profileDirs...)
		if err != nil {
			return usage("%v", err)
		}
		prof, err := bridge.LoadProfile(path)
		if err != nil {
			return usage("%v", err)
		}
		// The harness's scenario timeout outlasts the agent kernel's own
		// limit for the agent (both scaled by --timeout-multiplier), so
		// that a slow agent is the kernel's named hang, not a harness
		// timeout that takes the whole kernel down.
		if !c.Flags().Changed("timeout") {
			if err := c.Flags().Set("timeout", (prof.SessionTimeout() + agentTimeoutSlack).String()); err != nil {
				return err
			}
		}
		mult, err := c.Flags().GetFloat64("timeout-multiplier")
		if err != nil {
			return err
		}
		obs, err := os.CreateTemp("", "conform-agent-observations-*.jsonl")
		if err != nil {
			return err
		}
		_ = obs.Close()
		defer os.Remove(obs.Name())
		f.kernelObs = obs.Name()
		scratch, err := os.MkdirTemp("", "conform-agent-run-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(scratch)
		argv, err := agentKernelArgv(path, binDir, noIsolation)
		if err != nil {
			return err
		}
		argv = append(argv, "--timeout-multiplier", strconv.FormatFloat(mult, 'g', -1, 64), "--observations", obs.Name(), "--scratch", scratch)
		line, err := quoteArgv(argv)
		if err != nil {
			return usage("%v", err)
		}
		if err := c.Flags().Set("kernel", line); err != nil {
			return err
		}
		return runSuite(c, f)
	}
	return cmd
}

// agentTimeoutSlack is how much longer the harness waits for a session
// than the agent kernel waits for the agent: the kernel's sweep of
// leftover processes and its answer fit in it.
const agentTimeoutSlack = 30 * time.Second

// agentKernelArgv is the kernel command: the agent kernel under
// `unshare --net --mount` (a mount namespace of its own, so that it can
// point the namespace's /etc/resolv.conf at its stub resolver without
// touching the machine's), or bare with --no-isolation.
func agentKernelArgv(profile, binDir string, noIsolation bool) ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return a
	}
	argv := []string{self, "agent-kernel", "--profile", abs(profile), "--bin-dir", abs(binDir)}
	if noIsolation {
		return append(argv, "--no-isolation"), nil
	}
	if err := bridge.CanUnshareNet(); err != nil {
		return nil, usage("cannot isolate the agent: %v. conform agent refuses to run an agent without a network namespace; --no-isolation runs it anyway, where it could reach the network and everything listening on this machine", err)
	}
	un, err := exec.LookPath("unshare")
	if err != nil {
		return nil, usage("cannot isolate the agent: unshare (util-linux) is not on PATH; --no-isolation runs the agent without a namespace, where it could reach the network")
	}
	return append(append([]string{un, "--net", "--mount", "--"}, argv...), "--watch-lookups"), nil
}

// newAgentKernelCmd serves the agent kernel for one profile on stdin and
// stdout (what `conform agent` starts inside the namespace).
func newAgentKernelCmd() *cobra.Command {
	var profile, binDir, obsPath, scratch string
	var noIsolation, watchLookups bool
	var mult float64
	cmd := &cobra.Command{
		Use:    "agent-kernel --profile FILE",
		Short:  "Serve the agent kernel (the bridge) for one launch profile on stdin/stdout",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := bridge.LoadProfile(profile)
			if err != nil {
				return usage("%v", err)
			}
			k := &bridge.Kernel{Profile: p, Conform: selfPath(), BinDir: binDir, Version: runner.Version, Log: cmd.ErrOrStderr(), TimeoutMultiplier: mult, ScratchRoot: scratch}
			if obsPath != "" {
				f, err := os.OpenFile(obsPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
				if err != nil {
					return fmt.Errorf("agent-kernel: observations: %v", err)
				}
				defer f.Close()
				k.Observations = bridge.NewObservationWriter(f)
			}
			if !noIsolation {
				proof, err := bridge.Isolation()
				if err != nil {
					return fmt.Errorf("agent-kernel refuses to run the agent: %v", err)
				}
				k.Isolation = proof
			}
			if watchLookups {
				if noIsolation {
					return usage("--watch-lookups needs the namespace (it would change the machine's resolver)")
				}
				dir, err := os.MkdirTemp(scratch, "conform-resolver-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				stop, err := k.WatchLookups(dir, "127.0.0.53")
				if err != nil {
					return fmt.Errorf("agent-kernel: lookups beyond loopback cannot be watched: %v", err)
				}
				defer stop()
				defer k.WatchConnections()()
			}
			return kernelkit.Serve(cmd.Context(), k, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&profile, "profile", "", "the agent's launch profile (JSON)")
	cmd.Flags().StringVar(&binDir, "bin-dir", "", "where the profile's package binary is")
	cmd.Flags().BoolVar(&noIsolation, "no-isolation", false, "serve without proving a network namespace")
	cmd.Flags().BoolVar(&watchLookups, "watch-lookups", false, "answer the namespace's DNS lookups with a stub resolver on 127.0.0.53 and report each name, and make every address local to the namespace to report each connection attempted beyond loopback (needs unshare --net --mount)")
	cmd.Flags().StringVar(&scratch, "scratch", "", "make the sessions' scratch folders here (conform agent removes it after the run)")
	cmd.Flags().Float64Var(&mult, "timeout-multiplier", 1, "scale the profile's timeout_s (conform agent passes its own --timeout-multiplier)")
	cmd.Flags().StringVar(&obsPath, "observations", "", "append what the bridge sees of the agent, per session, to this JSONL file (conform agent reads it into the report)")
	_ = cmd.MarkFlagRequired("profile")
	return cmd
}

// newTestAgentCmd is the project's own Go coding agent (testagent).
func newTestAgentCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "test-agent --dialect D --base-url URL [--mcp-url URL] --prompt TEXT",
		Short:              "conform's own little coding agent, for checking the bridge without Node",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := testagent.Main(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

func selfPath() string {
	p, err := os.Executable()
	if err != nil || strings.TrimSpace(p) == "" {
		return "conform"
	}
	return p
}

// quoteArgv writes argv as a --kernel value (adapter.ParseCommand reads it
// back): every word in single quotes, which that parser has no escape for.
func quoteArgv(argv []string) (string, error) {
	out := make([]string, len(argv))
	for i, a := range argv {
		if strings.ContainsRune(a, '\'') {
			return "", fmt.Errorf("the path %q holds a single quote, which a kernel command cannot carry", a)
		}
		out[i] = "'" + a + "'"
	}
	return strings.Join(out, " "), nil
}

// kernelObservations reads the agent kernel's observation file per
// session, for the report.
func kernelObservations(path string) func(string) []report.Observation {
	rd := bridge.NewObservationReader(path)
	return func(session string) []report.Observation {
		var out []report.Observation
		for _, o := range rd.Take(session) {
			out = append(out, report.Observation{Subject: o.Subject, What: o.What})
		}
		return out
	}
}
