package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/server"
)

// embeddedKernel is the reference kernel served in-process, over the same
// wire protocol a subprocess kernel speaks.
func embeddedKernel() adapter.Launcher {
	return adapter.InProcess{Name: "conform reference kernel", Serve: serveReference}
}

// launcher is the kernel the --kernel flag names. Only an absent flag means
// the embedded reference kernel: an empty value is most often an unset
// variable in a CI script, and checking the reference kernel instead would
// pass a gate that checked nothing of the user's.
func launcher(cmd *cobra.Command, kernel string) (adapter.Launcher, error) {
	if !cmd.Flags().Changed("kernel") {
		return embeddedKernel(), nil
	}
	if strings.TrimSpace(kernel) == "" {
		return nil, usage("--kernel is empty; give the kernel's command, or leave the flag out to check the embedded reference kernel")
	}
	argv, err := adapter.ParseCommand(kernel)
	if err != nil {
		return nil, usage("--kernel: %v", err)
	}
	return adapter.Subprocess{Argv: argv}, nil
}

func serveReference(ctx context.Context, in io.Reader, out io.Writer) error {
	return server.Serve(ctx, refkernel.New(refkernel.DefaultParts()), in, out)
}

func newKernelCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "kernel",
		Short: "Serve the reference kernel on stdin/stdout (conform.wire/v1)",
		Long: `Serve the reference kernel on stdin/stdout, speaking conform.wire/v1.
This is what "conform run --kernel 'conform kernel'" checks as a subprocess.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return serveReference(cmd.Context(), os.Stdin, os.Stdout)
		},
	}
}
