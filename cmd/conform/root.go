package main

import (
	"github.com/spf13/cobra"
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
	root.AddCommand(newRunCmd(), newListCmd(), newExplainCmd(), newKernelCmd(), newFuzzCmd())
	return root
}
