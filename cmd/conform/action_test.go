package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

type actionFile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	With  map[string]string `yaml:"with"`
	Env   map[string]string `yaml:"env"`
}

func readYAML(t *testing.T, path string, v any) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}

func repo(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

var inputRef = regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)`)

// action.yml parses as a composite action; every input the issue asks for
// is there, every input is described, used by a step and documented in
// the README, and no step names an input that does not exist. Every
// conform flag its script passes exists on the command it is passed to.
func TestActionYAML(t *testing.T) {
	var a actionFile
	raw := readYAML(t, repo("action.yml"), &a)
	if a.Name == "" || a.Description == "" || a.Runs.Using != "composite" {
		t.Fatalf("not a composite action: %+v", a)
	}
	for _, want := range []string{"kernel", "require", "tags", "baseline", "shard", "timeout-multiplier"} {
		if _, ok := a.Inputs[want]; !ok {
			t.Errorf("input %q missing", want)
		}
	}
	readme, err := os.ReadFile(repo("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, s := range a.Runs.Steps {
		if s.Run != "" && s.Shell == "" {
			t.Errorf("step %q runs a script without a shell (composite actions need one)", s.Name)
		}
		steps++
	}
	used := map[string]bool{}
	for _, m := range inputRef.FindAllStringSubmatch(string(raw), -1) {
		used[m[1]] = true
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("a step uses inputs.%s, which action.yml does not declare", m[1])
		}
	}
	for name, in := range a.Inputs {
		if strings.TrimSpace(in.Description) == "" {
			t.Errorf("input %q has no description", name)
		}
		if !used[name] {
			t.Errorf("input %q is declared but no step uses it", name)
		}
		if !strings.Contains(string(readme), "| `"+name+"` |") {
			t.Errorf("input %q is not documented in the README's input table", name)
		}
	}
	var uses []string
	var script string
	for _, s := range a.Runs.Steps {
		uses = append(uses, s.Uses)
		script += s.Run + "\n"
		// Inputs reach scripts through the environment, never pasted into
		// the script, where a value could run as code.
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q pastes an expression into its script; pass it through env", s.Name)
		}
	}
	for _, want := range []string{"actions/setup-go@v5", "actions/upload-artifact@v4"} {
		if !slices.Contains(uses, want) {
			t.Errorf("no step uses %s", want)
		}
	}
	for _, want := range []string{"go install", "GITHUB_STEP_SUMMARY", "--bundle", "--junit", "--html", "--report-json", "--markdown"} {
		if !strings.Contains(script, want) {
			t.Errorf("the scripts never mention %s", want)
		}
	}
	// Flags of the report and gate arrays go to run and to merge; the
	// others to run only.
	both := flagsIn(script, `(?m)^\s*(?:reports|gate)\+?=\(.*$`)
	all := flagsIn(script, `(?m)^.*$`)
	wantFlags(t, "action.yml", "run", all)
	wantFlags(t, "action.yml", "merge", both)
}

var flagRe = regexp.MustCompile(`(?:^|[\s(])(--[a-z][a-z0-9-]*)`)

func flagsIn(script, lines string) []string {
	var out []string
	for _, l := range regexp.MustCompile(lines).FindAllString(script, -1) {
		if strings.Contains(l, "go install") || strings.Contains(l, "conform version") {
			continue
		}
		for _, m := range flagRe.FindAllStringSubmatch(l, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// wantFlags checks that every flag exists on the conform subcommand.
func wantFlags(t *testing.T, where, sub string, flags []string) {
	t.Helper()
	var cmd *cobra.Command
	for _, c := range newRootCmd().Commands() {
		if c.Name() == sub {
			cmd = c
		}
	}
	if cmd == nil {
		t.Fatalf("no conform %s", sub)
	}
	for _, f := range flags {
		if cmd.Flags().Lookup(strings.TrimPrefix(f, "--")) == nil {
			t.Errorf("%s passes %s to conform %s, which has no such flag", where, f, sub)
		}
	}
}

type workflow struct {
	Jobs map[string]struct {
		Needs    any    `yaml:"needs"`
		If       string `yaml:"if"`
		Strategy struct {
			Matrix map[string]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"jobs"`
}

// The example workflow parses, runs a 4-way shard matrix through the
// action with inputs the action has, and merges the shards' artifacts in a
// job that runs after them whatever they concluded.
func TestExampleWorkflow(t *testing.T) {
	var a actionFile
	readYAML(t, repo("action.yml"), &a)
	var w workflow
	readYAML(t, repo("examples", "ci", "github-actions.yml"), &w)
	shardJob, ok := w.Jobs["shard"]
	if !ok {
		t.Fatal("no shard job")
	}
	var shards []string
	for _, s := range shardJob.Strategy.Matrix["shard"].([]any) {
		shards = append(shards, s.(string))
	}
	if !slices.Equal(shards, []string{"1/4", "2/4", "3/4", "4/4"}) {
		t.Errorf("matrix %v", shards)
	}
	merge, ok := w.Jobs["merge"]
	if !ok || merge.Needs != "shard" || !strings.Contains(merge.If, "always()") {
		t.Fatalf("merge job: %+v", merge)
	}
	actionSteps := 0
	for name, job := range w.Jobs {
		for _, s := range job.Steps {
			if !strings.HasPrefix(s.Uses, "agentconform/conform@") {
				continue
			}
			actionSteps++
			for k := range s.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("job %s passes %q, which the action does not take", name, k)
				}
			}
			switch name {
			case "shard":
				if s.With["shard"] != "${{ matrix.shard }}" || s.With["kernel"] == "" {
					t.Errorf("shard step: %+v", s.With)
				}
			case "merge":
				if !strings.HasSuffix(s.With["merge"], "/report.json") {
					t.Errorf("merge step: %+v", s.With)
				}
			}
		}
		if name == "merge" {
			var pattern string
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "actions/download-artifact@") {
					pattern = s.With["pattern"]
				}
			}
			if want := a.Inputs["artifact-name"].Default + "-shard-*"; pattern != want {
				t.Errorf("the merge job downloads %q; the shards upload %q", pattern, want)
			}
		}
	}
	if actionSteps != 2 {
		t.Errorf("%d steps use the action, want 2", actionSteps)
	}
}

// The GitLab example parses and passes conform only flags it has.
func TestGitLabExample(t *testing.T) {
	var g map[string]any
	raw := readYAML(t, repo("examples", "ci", "gitlab-ci.yml"), &g)
	job, ok := g["conform"].(map[string]any)
	if !ok || job["parallel"] != 4 {
		t.Fatalf("conform job: %v", g["conform"])
	}
	text := string(raw)
	for _, sub := range []string{"run", "merge"} {
		i := strings.Index(text, "conform "+sub+" ")
		if i < 0 {
			t.Fatalf("no conform %s", sub)
		}
		end := strings.Index(text[i:], "\n  artifacts:")
		wantFlags(t, "gitlab-ci.yml", sub, flagsIn(text[i:i+end], `(?m)^.*$`))
	}
}
