package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/shard"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/spec"
)

type cliResult struct {
	code        int
	out, stderr string
}

func cli(args ...string) cliResult {
	var out, errb bytes.Buffer
	code := execute(context.Background(), args, &out, &errb)
	return cliResult{code, out.String(), errb.String()}
}

func (r cliResult) want(t *testing.T, code int, texts ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.out, r.stderr)
	}
	for _, s := range texts {
		if !strings.Contains(r.out+r.stderr, s) {
			t.Errorf("the output lacks %q\nstdout:\n%s\nstderr:\n%s", s, r.out, r.stderr)
		}
	}
}

// Every category through the CLI: every report format, report check, the
// label against the category's profile; two shards of a seeded campaign
// merged to the whole run's verdicts; diff of the whole run and the merge;
// a baseline of the profile's IDs (stale under --strict-baseline) and one
// of another profile's refused naming it; shards and diffs of two
// categories refused naming both.
func TestPluginEveryCategoryCI(t *testing.T) {
	testrace.SkipUnderRace(t)
	bins := buildPlugins(t)
	shards := map[string]string{}
	root := t.TempDir() // the shards outlive their subtest
	for _, p := range refPlugins {
		t.Run(p.category, func(t *testing.T) {
			dir := filepath.Join(root, p.category)
			cg, _ := category.Lookup(p.category)
			cat, err := spec.LoadProfile(cg.Profile)
			if err != nil {
				t.Fatal(err)
			}
			at := func(name string) string { return filepath.Join(dir, name) }
			// Each run of the tool provider gets a scratch folder of its own:
			// what one run's resource operations left is no input of the next.
			runs := 0
			base := func() []string {
				runs++
				args := []string{"plugin", "--plugin", bins[p.category], "--category", p.category, "-q", "--seed", "7", "--cases", "4", "--hook-cases", "2"}
				if p.category == "tool" {
					args = append(args, "--process-backed", "exec", "--allow-effects", at(fmt.Sprintf("scratch-%d", runs)))
				}
				return args
			}
			files := []string{"r.json", "r.xml", "r.md", "r.html", "r.svg"}
			cli(append(base(), "--report-json", at("r.json"), "--junit", at("r.xml"), "--markdown", at("r.md"),
				"--html", at("r.html"), "--badge", at("r.svg"), "--badge-json", at("badge.json"), "--bundle", at("bundles"))...).want(t, exitOK)
			var paths []string
			for _, f := range append(files, "badge.json") {
				if st, err := os.Stat(at(f)); err != nil || st.Size() == 0 {
					t.Errorf("%s not written: %v", f, err)
				}
			}
			for _, f := range files {
				paths = append(paths, at(f))
			}
			cli(append([]string{"report", "check"}, paths...)...).want(t, exitOK, "current     "+at("r.json"), "current     "+at("r.svg"))
			if _, err := os.Stat(at("bundles")); err == nil {
				t.Error("a passing run wrote repro bundles")
			}
			whole := readJSONReport(t, at("r.json"))
			if len(whole.Requirements) != len(cat.Requirements) || reportProfile(whole) != cg.Profile {
				t.Fatalf("the report has %d rows of profile %s; want the %d of %s", len(whole.Requirements), reportProfile(whole), len(cat.Requirements), cg.Profile)
			}
			if want := fmt.Sprintf("of %d %s requirements", len(cat.Requirements), cg.Profile); !strings.Contains(whole.Compliance.Label, want) {
				t.Errorf("label %q does not speak for %s", whole.Compliance.Label, want)
			}

			for k := 1; k <= 2; k++ {
				sh := at(fmt.Sprintf("s%d.json", k))
				cli(append(base(), "--shard", fmt.Sprintf("%d/2", k), "--report-json", sh)...).want(t, exitOK, "no compliance claim: this is shard")
				shards[fmt.Sprintf("%s-%d", p.category, k)] = sh
			}
			cli("merge", at("s1.json"), at("s2.json"), "--report-json", at("m.json")).want(t, exitOK, fmt.Sprintf("of %d %s requirements", len(cat.Requirements), cg.Profile))
			merged := readJSONReport(t, at("m.json"))
			if merged.Merged == nil || len(merged.Merged.Sources) != 2 || merged.Shard != nil {
				t.Errorf("merged: %+v, shard %+v", merged.Merged, merged.Shard)
			}
			// The slices drew other inputs than the whole run (a row judged
			// only on a rare draw may be reached in one and not the other),
			// so the merge is held to the fold of its slices: fail if any
			// failed, else pass if any passed, else what both said.
			s1, s2 := readJSONReport(t, at("s1.json")), readJSONReport(t, at("s2.json"))
			for i, q := range merged.Requirements {
				a, b := s1.Requirements[i].Status, s2.Requirements[i].Status
				want := a
				switch {
				case a == report.Fail || b == report.Fail:
					want = report.Fail
				case a == report.Pass || b == report.Pass:
					want = report.Pass
				case a != b:
					continue
				}
				if q.Status != want {
					t.Errorf("%s: merged %s, shards %s and %s", q.ID, q.Status, a, b)
				}
			}
			// A row one slice fails fails the merge, whatever the other said.
			failed := failOneCheck(t, s2, cat)
			bad := at("s2-bad.json")
			writeReportJSON(t, bad, s2)
			cli("merge", at("s1.json"), bad, "--require", "all").want(t, exitFailed, failed)
			cli("diff", at("r.json"), at("m.json")).want(t, exitOK, "0 regressions")

			passing := ""
			for _, q := range whole.Requirements {
				if q.Status == report.Pass {
					passing = q.ID
					break
				}
			}
			bl := at("baseline.yaml")
			writeText(t, bl, "version: 1\nexpected_failures:\n  - id: "+passing+"\n    reason: known\n")
			cli("merge", at("s1.json"), at("s2.json"), "--baseline", bl, "--strict-baseline").want(t, exitFailed, "stale", passing)
			other, otherProfile := "PL-01", spec.ProfilePlugin
			if p.category == "tool" {
				other, otherProfile = "MP-01", spec.ProfileModelProvider
			}
			writeText(t, bl, "version: 1\nexpected_failures:\n  - id: "+other+"\n    reason: known\n")
			cli(append(base(), "--baseline", bl)...).want(t, exitUsage, other+" is a requirement of the "+otherProfile+" profile", "judged against the "+cg.Profile+" profile")
		})
	}
	if t.Failed() {
		return
	}
	t.Run("two categories", func(t *testing.T) {
		cli("merge", shards["model-1"], shards["context-2"]).want(t, exitUsage, "is a model-provider report", "is a context-provider report")
		cli("diff", shards["memory-1"], shards["tool-1"]).want(t, exitUsage, "is a memory-provider report", "is a plugin report")
		cli("merge", shards["context-1"], shards["context-1"]).want(t, exitUsage, "given twice")
	})
	t.Run("two plugins", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "s2.json")
		cli("plugin", "--plugin", bins["context"]+" -compactor", "--category", "context", "-q", "--seed", "7", "--cases", "4", "--shard", "2/2", "--report-json", other).want(t, exitOK)
		cli("merge", shards["context-1"], other).want(t, exitUsage, "differ in kernel command")
	})
	t.Run("two campaigns", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "s2.json")
		cli("plugin", "--plugin", bins["context"], "--category", "context", "-q", "--seed", "8", "--cases", "4", "--shard", "2/2", "--report-json", other).want(t, exitOK)
		cli("merge", shards["context-1"], other).want(t, exitUsage, "campaign of --seed 7", "of --seed 8")
	})
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// --shard is refused where its slices could not be one campaign.
func TestPluginShardUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "1/2"}, "--shard needs --seed"},
		{[]string{"--shard", "3/2", "--seed", "1"}, "K must be between 1 and N"},
		{[]string{"--shard", "1/5", "--seed", "1", "--cases", "4"}, "fewer than 5 slices"},
		{[]string{"--shard", "x", "--seed", "1"}, "is not K/N"},
	} {
		cli(append([]string{"plugin", "--plugin", "x"}, tt.args...)...).want(t, exitUsage, tt.want)
	}
}

// A failing tool provider (lookup named process-backed, which it is not:
// PL-16 fails) gets a bundle per failing requirement, valid against
// spec/plugin-bundle.schema.json, whose repro command fails the same way.
func TestPluginBundleOfAFailure(t *testing.T) {
	testrace.SkipUnderRace(t)
	bin := refBin(t, "tool")
	dir := t.TempDir()
	args := []string{"plugin", "--plugin", bin, "-q", "--seed", "5", "--cases", "4", "--hook-cases", "2", "--process-backed", "lookup", "--bundle", filepath.Join(dir, "b")}
	cli(args...).want(t, exitFailed, "repro bundles")
	raw, err := os.ReadFile(filepath.Join(dir, "b", "PL-16", "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	validatePluginBundle(t, raw)
	var b pluginBundle
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	if b.Seed != 5 || b.Plugin.Category != "tool" || len(b.Checks) == 0 || !strings.Contains(b.Checks[0].Message, "exit_status") ||
		!strings.Contains(b.Repro, "--process-backed lookup") || !strings.Contains(b.Repro, "--seed 5") {
		t.Errorf("bundle: %s", raw)
	}
	repro := strings.Fields(strings.TrimPrefix(b.Repro, "conform "))
	cli(append(repro, "-q")...).want(t, exitFailed, "PL-16")
}

// Every category's failing row makes a bundle of its own profile, valid
// against the schema (the engines share the writer; no reference plugin
// of the other categories fails).
func TestPluginBundlesEveryCategory(t *testing.T) {
	for _, cg := range category.All() {
		cat, err := spec.LoadProfile(cg.Profile)
		if err != nil {
			t.Fatal(err)
		}
		q := cat.Requirements[0]
		r := report.BuildWith(cat, report.Kernel{Name: "p", Command: "./p"}, []report.ScenarioResult{{
			File: cg.Name + "/x", Line: 1, Name: "x", Requirements: []string{q.ID}, Status: report.Fail,
			Checks: []report.CheckResult{{Step: "s", Line: 2, Requirements: []string{q.ID}, Status: report.Fail, Message: "broke; shrunk input: {}"}},
		}}, timeZero, 0, report.BuildOptions{})
		r.Protocol = "p"
		dir := t.TempDir()
		got, err := writePluginBundles(dir, r, cg, pluginFlags{plugin: "./p", cases: 3, hookCases: 2, env: []string{"TOKEN=secret"}}, shardSpec(t, "2/3"), 9)
		if err != nil || len(got) != 1 {
			t.Fatalf("%s: %v %v", cg.Name, got, err)
		}
		raw, err := os.ReadFile(filepath.Join(got[0], "bundle.json"))
		if err != nil {
			t.Fatal(err)
		}
		validatePluginBundle(t, raw)
		if !strings.Contains(string(raw), q.ID) || !strings.Contains(string(raw), "--shard 2/3") || strings.Contains(string(raw), "secret") {
			t.Errorf("%s bundle: %s", cg.Name, raw)
		}
	}
}

func validatePluginBundle(t *testing.T, raw []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.PluginBundleSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("plugin-bundle.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("plugin-bundle.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("the bundle does not validate: %v\n%s", err, raw)
	}
}

var timeZero time.Time

func shardSpec(t *testing.T, s string) shard.Spec {
	t.Helper()
	sp, err := shard.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// failOneCheck turns r's first passing check of a MUST row into a
// failure, rebuilds r as the shard it is, and returns the row's ID.
func failOneCheck(t *testing.T, r *report.Report, cat *spec.Catalog) string {
	t.Helper()
	for i, sc := range r.Scenarios {
		for j, c := range sc.Checks {
			if c.Status != report.Pass || len(c.Requirements) == 0 {
				continue
			}
			id := c.Requirements[0]
			if q, ok := cat.Get(id); !ok || q.Class != "must" {
				continue
			}
			r.Scenarios[i].Checks[j].Status, r.Scenarios[i].Checks[j].Message = report.Fail, "made to fail by the test"
			r.Scenarios[i].Status = report.Fail
			out := report.BuildWith(cat, r.Kernel, r.Scenarios, r.StartedAt, r.Duration, report.BuildOptions{Warnings: r.Warnings, Shard: fmt.Sprintf("%d/%d", r.Shard.K, r.Shard.N)})
			out.Tool, out.Protocol, out.Shard = r.Tool, r.Protocol, r.Shard
			*r = *out
			return id
		}
	}
	t.Fatal("no passing MUST check to fail")
	return ""
}

func writeReportJSON(t *testing.T, path string, r *report.Report) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	writeText(t, path, string(b))
}

// A shard of a plugin that never handshakes exits 2 like a whole run, its
// report every row in error and still marked as the shard it is.
func TestPluginShardNotAPlugin(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	cli("plugin", "--plugin", "sh -c 'echo not a plugin; exit 3'", "--category", "context", "-q", "--start-timeout", "2s",
		"--seed", "3", "--shard", "1/2", "--report-json", out).want(t, exitUsage, "the plugin could not be checked")
	r := readJSONReport(t, out)
	if r.Shard == nil || r.Shard.K != 1 || r.Requirements[0].Status != report.Error {
		t.Errorf("shard %+v, first row %s", r.Shard, r.Requirements[0].Status)
	}
}
