package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/runner"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "conform",
		Short: "Conformance checks for agent-loop kernels",
		Long: `conform checks whether an agent-loop kernel behaves as the agent-loop
specification requires. It hosts fake model, tool, hook, context and
frontend providers, drives the kernel over the conform.wire/v1 protocol
(spec/PROTOCOL.md), and reports a verdict for every requirement.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError) // inherited by every subcommand
	root.Version = runner.Version
	// The template is fixed text: escape what text/template would read.
	root.SetVersionTemplate(strings.ReplaceAll(versionText(), "{{", "{{`{{`}}"))
	root.AddCommand(newRunCmd(), newListCmd(), newExplainCmd(), newKernelCmd(), newFuzzCmd(), newVersionCmd())
	root.AddCommand(newBaselineCmd(), newDiffCmd(), newMergeCmd(), newReplayCmd())
	root.AddCommand(newPluginCmd())
	root.AddCommand(newReportCmd())
	root.AddCommand(newTraceCmd(), newHookRelayCmd())
	root.AddCommand(newAgentCmd(), newAgentKernelCmd(), newTestAgentCmd())
	return root
}
