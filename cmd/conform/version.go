package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/spec"
	"github.com/agentconform/conform/spec/wire"
)

// versionText names the three things a report depends on: the tool, the
// wire protocol it speaks and the requirement catalog it checks against.
func versionText() string {
	catalog := "unreadable"
	if cat, err := spec.Load(); err != nil {
		catalog += " (" + err.Error() + ")"
	} else {
		catalog = fmt.Sprintf("version %d, %d requirements", cat.Version, len(cat.Requirements))
	}
	return fmt.Sprintf("conform %s\nprotocol %s\ncatalog %s\n", runner.Version, wire.Version, catalog)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the tool, protocol and catalog versions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionText())
			return err
		},
	}
}
