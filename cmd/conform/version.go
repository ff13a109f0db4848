package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/provenance"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/spec"
	"github.com/agentconform/conform/spec/wire"
)

// versionText names what a report depends on: the tool and the commit it
// was built from, the wire protocol it speaks, the requirement catalog it
// checks against and the digest of the suite (catalog and feature files)
// that every report names.
func versionText() string {
	catalog := "unreadable"
	if cat, err := spec.Load(); err != nil {
		catalog += " (" + err.Error() + ")"
	} else {
		catalog = fmt.Sprintf("version %d, %d requirements", cat.Version, len(cat.Requirements))
	}
	commit := provenance.Commit()
	if commit == "" {
		commit = "unknown"
	}
	return fmt.Sprintf("conform %s\ncommit %s\nprotocol %s\ncatalog %s\nsuite %s\n", runner.Version, commit, wire.Version, catalog, provenance.SuiteDigest())
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
