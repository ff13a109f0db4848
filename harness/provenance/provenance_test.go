package provenance

import (
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentconform/conform/spec"
)

func suiteFS() fstest.MapFS {
	return fstest.MapFS{
		"a.feature":     {Data: []byte("Feature: a\n  Scenario: one\n    Then the kernel ran 1 ordinary turn\n")},
		"sub/b.feature": {Data: []byte("Feature: b\n")},
		"notes.md":      {Data: []byte("not part of the suite")},
	}
}

func TestDigestChangesWithTheSuite(t *testing.T) {
	cat := []byte(`{"version":1}`)
	base, err := Digest(cat, suiteFS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(base, Prefix) || len(base) != len(Prefix)+64 {
		t.Fatalf("digest %q is not sha256:<64 hex>", base)
	}
	again, _ := Digest(cat, suiteFS(), ".")
	if again != base {
		t.Error("the same suite gave two digests")
	}
	changes := map[string]func(fstest.MapFS) []byte{
		"a feature's text": func(fs fstest.MapFS) []byte {
			fs["a.feature"] = &fstest.MapFile{Data: []byte("Feature: a\n  Scenario: one\n    Then the kernel ran 2 ordinary turns\n")}
			return cat
		},
		"a feature file added": func(fs fstest.MapFS) []byte {
			fs["c.feature"] = &fstest.MapFile{Data: []byte("Feature: c\n")}
			return cat
		},
		"a feature file renamed": func(fs fstest.MapFS) []byte {
			fs["b2.feature"] = fs["sub/b.feature"]
			delete(fs, "sub/b.feature")
			return cat
		},
		"the catalog": func(fstest.MapFS) []byte { return []byte(`{"version":2}`) },
		"bytes moved from the catalog to a feature": func(fs fstest.MapFS) []byte {
			fs["a.feature"] = &fstest.MapFile{Data: append([]byte("}"), fs["a.feature"].Data...)}
			return []byte(`{"version":1`)
		},
	}
	for name, change := range changes {
		fs := suiteFS()
		c := change(fs)
		d, err := Digest(c, fs, ".")
		if err != nil {
			t.Fatal(err)
		}
		if d == base {
			t.Errorf("%s changed and the digest did not", name)
		}
	}
	// A file that is not a feature is not part of the suite.
	fs := suiteFS()
	fs["notes.md"] = &fstest.MapFile{Data: []byte("edited")}
	if d, _ := Digest(cat, fs, "."); d != base {
		t.Error("a file that is no feature changed the digest")
	}
	// The same files under a folder give the same digest.
	nested := fstest.MapFS{}
	for p, f := range suiteFS() {
		nested["features/"+p] = f
	}
	if d, _ := Digest(cat, nested, "features"); d != base {
		t.Error("the suite's digest depends on the folder it sits in")
	}
}

func TestSuiteDigestIsTheBuiltInSuite(t *testing.T) {
	d := SuiteDigest()
	if d != SuiteDigest() || !strings.HasPrefix(d, Prefix) {
		t.Fatalf("SuiteDigest = %q", d)
	}
	if other, _ := Digest(append(spec.CatalogJSON(), ' '), fstest.MapFS{}, "."); other == d {
		t.Error("the built-in digest ignores the feature files")
	}
	if Short(d) != d[:len(Prefix)+12] {
		t.Errorf("Short(%q) = %q", d, Short(d))
	}
}

func TestCommitFromBuildSettings(t *testing.T) {
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, ""},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "835b2e8d260894e78bfed2e55eb2930f8a15a615"}, {Key: "vcs.modified", Value: "false"}}, "835b2e8d2608"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "835b2e8d260894e78bfed2e55eb2930f8a15a615"}, {Key: "vcs.modified", Value: "true"}}, "835b2e8d2608+dirty"},
	} {
		if got := fromSettings(c.settings); got != c.want {
			t.Errorf("fromSettings(%v) = %q, want %q", c.settings, got, c.want)
		}
	}
	old := commit
	defer func() { commit = old }()
	commit = "abc123"
	if Commit() != "abc123" {
		t.Error("the -ldflags commit does not win")
	}
}
