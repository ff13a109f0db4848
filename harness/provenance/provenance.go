package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/spec"
)

// commit may be set at link time (go build -ldflags "-X
// github.com/agentconform/conform/harness/provenance.commit=REV") where the
// build carries no version-control stamp (a tarball, go run, go test).
var commit string

// Commit returns the commit conform was built from: the -ldflags value when
// set, else the build's vcs.revision (first 12 hex digits) with "+dirty"
// when the work tree had uncommitted changes; "" when neither is known.
func Commit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return fromSettings(info.Settings)
}

func fromSettings(settings []debug.BuildSetting) string {
	var rev string
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}

// Prefix is how every digest starts, so a reader knows the algorithm.
const Prefix = "sha256:"

var suite = sync.OnceValues(func() (string, error) {
	return Digest(spec.CatalogJSON(), features.FS, ".")
})

// SuiteDigest is the digest of the suite built into this conform: the
// embedded catalog and feature files. It panics only if the embedded
// files cannot be read, a defect of the build.
func SuiteDigest() string {
	d, err := suite()
	if err != nil {
		panic(err)
	}
	return d
}

// Digest is the digest of a catalog (its file's bytes) and the .feature
// files under root in fsys: SHA-256 over the catalog, then each feature
// file's path relative to root and its bytes, in path order, each part
// length-prefixed so that no two suites share an input.
func Digest(catalog []byte, fsys fs.FS, root string) (string, error) {
	files, err := FeatureFiles(fsys, root)
	if err != nil {
		return "", fmt.Errorf("reading the feature files: %w", err)
	}
	h := sha256.New()
	part := func(b []byte) {
		fmt.Fprintf(h, "%d:", len(b))
		h.Write(b)
	}
	part(catalog)
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return "", fmt.Errorf("reading the feature files: %w", err)
		}
		rel := strings.TrimPrefix(f, path.Clean(root)+"/")
		part([]byte(rel))
		part(b)
	}
	return Prefix + hex.EncodeToString(h.Sum(nil)), nil
}

// Short is a digest cut to its first 12 hex digits, for people.
func Short(digest string) string {
	if h, ok := strings.CutPrefix(digest, Prefix); ok && len(h) > 12 {
		return Prefix + h[:12]
	}
	return digest
}

// FeatureFiles lists the .feature files under root in fsys, in path order:
// the suite the runner loads and the digest covers are one list.
func FeatureFiles(fsys fs.FS, root string) ([]string, error) {
	var files []string
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".feature") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}
