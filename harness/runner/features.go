package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	messages "github.com/cucumber/messages/go/v34"

	"github.com/agentconform/conform/harness/provenance"
	"github.com/agentconform/conform/spec"
)

// FeatureError is a defect in a feature file.
type FeatureError struct {
	File   string
	Line   int
	Reason string
}

func (e *FeatureError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

// ErrNoFeatures means a folder holds no .feature file.
var ErrNoFeatures = errors.New("no .feature files")

// ScenarioInfo is what the harness knows of a scenario before running it.
type ScenarioInfo struct {
	File         string
	Line         int
	Name         string
	Requirements []string
}

// LoadFeatures lists and checks every .feature file under root in fsys. It
// returns all defects at once, so an author fixes them in one pass.
func LoadFeatures(fsys fs.FS, root string, cat *spec.Catalog) ([]string, []ScenarioInfo, error) {
	files, err := provenance.FeatureFiles(fsys, root)
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("%w under %q", ErrNoFeatures, root)
	}
	sort.Strings(files)
	var errs []error
	var infos []ScenarioInfo
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		is, ferrs := checkFeature(f, data, cat)
		infos = append(infos, is...)
		errs = append(errs, ferrs...)
	}
	return files, infos, errors.Join(errs...)
}

func checkFeature(file string, data []byte, cat *spec.Catalog) ([]ScenarioInfo, []error) {
	if err := scannable(file, data); err != nil {
		return nil, []error{err}
	}
	doc, err := parseGherkin(data)
	if err != nil {
		return nil, gherkinErrors(file, err)
	}
	if doc.Feature == nil {
		return nil, []error{&FeatureError{File: file, Line: 1, Reason: "no Feature"}}
	}
	var errs []error
	var infos []ScenarioInfo
	for _, ts := range featureScenarios(doc.Feature) {
		sc, tags := ts.sc, ts.tags
		line := int(sc.Location.Line)
		for _, id := range unknownIDs(cat, tags) {
			errs = append(errs, &FeatureError{File: file, Line: line, Reason: "unknown requirement ID " + id})
		}
		var ids []string
		for _, t := range tags {
			if _, ok := cat.Get(strings.TrimPrefix(t, "@")); ok {
				ids = append(ids, strings.TrimPrefix(t, "@"))
			}
		}
		if len(ids) == 0 {
			errs = append(errs, &FeatureError{File: file, Line: line, Reason: fmt.Sprintf("scenario %q is tagged with no requirement ID; every scenario proves at least one", sc.Name)})
		}
		infos = append(infos, ScenarioInfo{File: path.Clean(file), Line: line, Name: sc.Name, Requirements: ids})
	}
	return infos, errs
}

// unknownIDs lists the tags shaped like a requirement ID (an area prefix, a
// dash, digits) that name no requirement: @TA-999 is a typo that would
// otherwise pass silently beside a valid ID.
func unknownIDs(cat *spec.Catalog, tags []string) []string {
	var out []string
	for _, t := range tags {
		id := strings.TrimPrefix(t, "@")
		_, num, ok := strings.Cut(id, "-")
		if !ok || num == "" || strings.Trim(num, "0123456789") != "" || cat.AreaOf(strings.ToUpper(id)).Prefix == "" {
			continue
		}
		if _, known := cat.Get(id); !known && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func tagNames(ts []*messages.Tag) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}
