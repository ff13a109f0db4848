package mutation

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Package is one mutated package and the requirements it serves.
type Package struct {
	Dir   string   `json:"dir"`   // module-relative, e.g. refkernel/bounds
	Files []string `json:"files"` // module-relative non-test .go files
	// Requirements are the IDs its doc.go names; the scenarios tagged with
	// them judge its mutants first. Empty: the whole suite judges them.
	Requirements []string `json:"requirements"`
}

// Tags is the godog tag expression selecting the package's scenarios, ""
// for the whole suite.
func (p Package) Tags() string {
	if len(p.Requirements) == 0 {
		return ""
	}
	return "@" + strings.Join(p.Requirements, ",@")
}

// excluded are the folders under the mutated tree that are not kernel code:
// the hand-written mutants of the kill matrix and a test-only fake host.
var excluded = []string{"refkernel/mutants", "refkernel/internal/fakehost"}

// Discover lists the packages under root/tree (module-relative tree, e.g.
// "refkernel") whose non-test files are mutated, sorted by folder.
func Discover(root, tree string) ([]Package, error) {
	byDir := map[string]*Package{}
	err := filepath.WalkDir(filepath.Join(root, tree), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if slices.Contains(excluded, rel) || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if byDir[dir] == nil {
			byDir[dir] = &Package{Dir: dir}
		}
		byDir[dir].Files = append(byDir[dir].Files, rel)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("discover packages under %s: %w", tree, err)
	}
	var out []Package
	for _, p := range byDir {
		doc, err := os.ReadFile(filepath.Join(root, p.Dir, "doc.go"))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		p.Requirements = RequirementIDs(string(doc))
		slices.Sort(p.Files)
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Package) int { return strings.Compare(a.Dir, b.Dir) })
	return out, nil
}

var (
	idRe    = regexp.MustCompile(`\b(TA|HD|PA|SA|ER|DF)-(\d{2})\b`)
	rangeRe = regexp.MustCompile(`\b(TA|HD|PA|SA|ER|DF)-(\d{2})\s*(?:…|\.\.\.|to)\s*(TA|HD|PA|SA|ER|DF)-(\d{2})\b`)
)

// RequirementIDs reads the requirement IDs a doc comment names, ranges
// ("DF-01…DF-10", "SA-01 to SA-16") expanded, sorted and without
// duplicates. Reading IDs ("A-07") are not requirements and are skipped.
func RequirementIDs(doc string) []string {
	set := map[string]bool{}
	for _, m := range rangeRe.FindAllStringSubmatch(doc, -1) {
		if m[1] != m[3] {
			continue
		}
		lo, _ := strconv.Atoi(m[2])
		hi, _ := strconv.Atoi(m[4])
		for i := lo; i <= hi; i++ {
			set[fmt.Sprintf("%s-%02d", m[1], i)] = true
		}
	}
	for _, m := range idRe.FindAllString(doc, -1) {
		set[m] = true
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
