package main

import (
	"errors"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/agentconform/conform/harness/runner"
)

// featureFolder opens --features, naming the path given in every error (the
// folder is opened as its own root, so the loader's errors would say ".").
func featureFolder(dir string) (fs.FS, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, usage("--features %s: no such folder", dir)
	case err != nil:
		return nil, usage("--features %s: %v", dir, unwrapPath(err))
	case !st.IsDir():
		return nil, usage("--features %s is a file; give the folder that holds the .feature files", dir)
	}
	return os.DirFS(dir), nil
}

// checkSelection refuses, before any kernel starts, a tag expression that
// does not parse or selects nothing, and feature files with defects: each
// would otherwise end in a run that checked nothing and exited 0.
func checkSelection(opt runner.Options, f runFlags) error {
	_, err := runner.Select(opt.FS, opt.Root, f.tags)
	var te *runner.TagError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		return usage("--tags %q does not parse: %s", te.Expr, te.Reason)
	case errors.Is(err, runner.ErrNoScenario):
		hint := ""
		if near := nearTags(f.tags, knownTags(opt)); len(near) > 0 {
			hint = "; did you mean " + strings.Join(near, " or ") + "?"
		}
		return usage("--tags %q selects no scenario%s\n(conform list shows every requirement with the scenarios that cover it; a requirement's tag is its ID, e.g. @TA-01, and levels are @must, @should, @may)", f.tags, hint)
	case f.features != "" && errors.Is(err, runner.ErrNoFeatures):
		return usage("--features %s holds no .feature files", f.features)
	case f.features != "":
		return usage("--features %s:\n%v", f.features, err)
	}
	return usage("the embedded suite:\n%v", err)
}

// knownTags are the tags of every scenario of the suite opt runs.
func knownTags(opt runner.Options) []string {
	refs, err := runner.Select(opt.FS, opt.Root, "")
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range refs {
		for _, t := range r.Tags {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}

// unwrapPath drops the path an *fs.PathError repeats, for messages that
// name the path the user gave.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
