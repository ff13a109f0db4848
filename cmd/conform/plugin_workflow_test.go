package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentconform/conform/pluginconform/category"
)

// The plugin workflow example parses; its shard matrix covers every
// registered category in two shards of one seed, with a --require each;
// the merge job folds each category's shards; and every conform command
// line in it (the matrix's flags included) passes only flags the real
// cobra command has.
func TestPluginWorkflowExample(t *testing.T) {
	var w struct {
		Jobs map[string]struct {
			Needs    any    `yaml:"needs"`
			If       string `yaml:"if"`
			Strategy struct {
				Matrix struct {
					Category []string            `yaml:"category"`
					Shard    []string            `yaml:"shard"`
					Include  []map[string]string `yaml:"include"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []actionStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, repo("examples", "ci", "plugin-workflow.yml"), &w)
	job, ok := w.Jobs["conform-plugin"]
	if !ok {
		t.Fatal("no conform-plugin job")
	}
	m := job.Strategy.Matrix
	names := category.Names()
	if got := slices.Sorted(slices.Values(m.Category)); !slices.Equal(got, names) {
		t.Errorf("the matrix covers %v, the registered categories are %v", got, names)
	}
	if !slices.Equal(m.Shard, []string{"1/2", "2/2"}) {
		t.Errorf("shards %v", m.Shard)
	}
	merge, ok := w.Jobs["merge"]
	if !ok || merge.Needs != "conform-plugin" || !strings.Contains(merge.If, "always()") {
		t.Fatalf("merge job: needs %v, if %q", merge.Needs, merge.If)
	}
	for _, j := range []struct {
		name    string
		include []map[string]string
	}{{"conform-plugin", m.Include}, {"merge", merge.Strategy.Matrix.Include}} {
		var covered []string
		for _, row := range j.include {
			covered = append(covered, row["category"])
			switch row["require"] {
			case "must", "should", "all":
			default:
				t.Errorf("%s: category %s has --require %q", j.name, row["category"], row["require"])
			}
			if f := row["flags"]; f != "" {
				wantFlags(t, "plugin-workflow.yml matrix "+row["category"], "plugin", flagsIn(f, `(?m)^.*$`))
			}
		}
		if slices.Sort(covered); !slices.Equal(covered, names) {
			t.Errorf("%s: the include rows cover %v, the registered categories are %v", j.name, covered, names)
		}
	}
	seen := map[string]bool{}
	for name, job := range w.Jobs {
		for _, s := range job.Steps {
			for _, line := range commandLines(s.Run) {
				mm := conformSub.FindStringSubmatch(line)
				if mm == nil {
					continue
				}
				sub := mm[1]
				seen[sub] = true
				wantFlags(t, "plugin-workflow.yml job "+name, sub, flagsIn(line, `(?m)^.*$`))
				if sub == "plugin" {
					for _, f := range []string{"--category ${{ matrix.category }}", "--seed ${{ github.run_id }}", "--shard ${{ matrix.shard }}", "--require ${{ matrix.require }}", "--bundle"} {
						if !strings.Contains(line, f) {
							t.Errorf("conform plugin lacks %s: %s", f, line)
						}
					}
				}
			}
		}
	}
	for _, sub := range []string{"plugin", "merge", "diff"} {
		if !seen[sub] {
			t.Errorf("the workflow never runs conform %s", sub)
		}
	}
}

var conformSub = regexp.MustCompile(`(?:^|\s)conform (plugin|merge|diff)\s`)

// commandLines joins a script's backslash-continued lines.
func commandLines(script string) []string {
	return strings.Split(strings.ReplaceAll(script, "\\\n", " "), "\n")
}
