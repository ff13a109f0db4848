package runner

import (
	"io/fs"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/harness/provenance"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

func toolOf(opt Options) report.Tool { return ToolOf(opt.FS, opt.Root) }

// ToolOf names this conform in a report: its version, the commit it was
// built from and the digest of the suite a run used, the feature files
// under root in fsys (nil: the built-in ones) with the catalog. A suite
// whose files cannot be read gets no digest, which `conform report check`
// then reports as unknown rather than current.
func ToolOf(fsys fs.FS, root string) report.Tool {
	t := report.Tool{Name: "conform", Version: Version, Commit: provenance.Commit()}
	if fsys == nil || fsys == fs.FS(features.FS) && (root == "" || root == ".") {
		t.SuiteDigest = provenance.SuiteDigest()
		return t
	}
	if d, err := provenance.Digest(spec.CatalogJSON(), fsys, root); err == nil {
		t.SuiteDigest = d
	}
	return t
}
