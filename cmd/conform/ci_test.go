package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/shard"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/spec"
)

// Every CI flag and command refuses bad input before a kernel starts.
func TestCIUsageErrors(t *testing.T) {
	k, marker := markerKernel(t)
	dir := t.TempDir()
	used := filepath.Join(dir, "used")
	os.MkdirAll(filepath.Join(used, "x"), 0o755)
	os.WriteFile(filepath.Join(used, "x", "bundle.json"), []byte("{}"), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\nexpected_failures:\n  - id: TA-99\n    reason: typo\n"), 0o644)
	notReport := filepath.Join(dir, "not.json")
	os.WriteFile(notReport, []byte(`{"hello":1}`), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--kernel", k, "--shard", "5/4"}, "K must be between 1 and N"},
		{[]string{"run", "--kernel", k, "--shard", "two"}, "is not K/N"},
		{[]string{"run", "--kernel", k, "--strict-baseline"}, "--strict-baseline needs --baseline"},
		{[]string{"run", "--kernel", k, "--durations", notReport}, "give --shard too"},
		{[]string{"run", "--kernel", k, "--shard", "1/2", "--durations", notReport}, "does not match the schema"},
		{[]string{"run", "--kernel", k, "--baseline", bad}, "TA-99 is not a requirement"},
		{[]string{"run", "--kernel", k, "--baseline", filepath.Join(dir, "none.yaml")}, "no such file"},
		{[]string{"run", "--kernel", k, "--bundle", used}, "already holds 1 repro bundles"},
		{[]string{"merge", notReport}, "does not match the schema"},
		{[]string{"merge", filepath.Join(dir, "none.json")}, "no such file"},
		{[]string{"diff", notReport, notReport}, "does not match the schema"},
		{[]string{"replay", dir}, "holds no repro bundle"},
		{[]string{"baseline", "write", filepath.Join(dir, "b.yaml")}, "--from REPORT.json is required"},
		{[]string{"baseline", "write", bad, "--from", notReport}, "exists; give --force"},
		{[]string{"fuzz", "--kernel", k, "--shard", "0/3"}, "K must be between 1 and N"},
	} {
		wantUsage(t, tt.args, tt.want)
	}
	wantNotLaunched(t, marker)
}

func readJSONReport(t *testing.T, path string) *report.Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.ValidateJSON(spec.ReportSchema, data); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// A tag selection run whole, then as two shards balanced by the whole
// run's durations, merges to the same verdicts; merge writes every report
// and diff finds no change; a shard alone cannot be merged.
func TestShardMergeDiffCLI(t *testing.T) {
	testrace.SkipUnderRace(t)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	sel := "@TA-01,@TA-02,@HD-01"
	if code, _, errOut := conform(t, "run", "-q", "--tags", sel, "--report-json", p("whole.json")); code != 0 {
		t.Fatalf("whole run: exit %d\n%s", code, errOut)
	}
	for _, k := range []string{"1", "2"} {
		if code, _, errOut := conform(t, "run", "-q", "--tags", sel, "--shard", k+"/2", "--durations", p("whole.json"), "--report-json", p("s"+k+".json")); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", k, code, errOut)
		}
	}
	s1 := readJSONReport(t, p("s1.json"))
	if s1.Shard == nil || s1.Shard.Balance != "duration" || s1.Compliance.Level != report.LevelNone {
		t.Fatalf("shard report: %+v %+v", s1.Shard, s1.Compliance)
	}
	wantUsage(t, []string{"merge", p("s1.json")}, "shards missing: 2/2")
	code, out, errOut := conform(t, "merge", p("s1.json"), p("s2.json"), "--report-json", p("m.json"), "--junit", p("m.xml"), "--markdown", p("m.md"), "--html", p("m.html"))
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	whole, merged := readJSONReport(t, p("whole.json")), readJSONReport(t, p("m.json"))
	for i, q := range whole.Requirements {
		if merged.Requirements[i].Status != q.Status {
			t.Errorf("%s: merged %s, whole %s", q.ID, merged.Requirements[i].Status, q.Status)
		}
	}
	if len(merged.Scenarios) != len(whole.Scenarios) || merged.Merged == nil {
		t.Fatalf("merged %d scenarios of %d", len(merged.Scenarios), len(whole.Scenarios))
	}
	for _, f := range []string{"m.xml", "m.md", "m.html"} {
		if st, err := os.Stat(p(f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if code, out, _ := conform(t, "diff", p("whole.json"), p("m.json"), "--markdown", p("d.md")); code != 0 || !strings.Contains(out, "0 regressions") {
		t.Fatalf("diff of equal runs: exit %d\n%s", code, out)
	}
}

func naiveKernel(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	abs, err := filepath.Abs(repo("examples", "naive-kernel-python", "kernel.py"))
	if err != nil {
		t.Fatal(err)
	}
	return py + " " + abs
}

// The naive kernel fails TA-02: the run fails; with a baseline written from
// that report it passes and names the expected failures; a baseline entry
// pinned to a scenario that passes is stale and fails the run only under
// --strict-baseline; the failing scenarios leave bundles that replay.
func TestBaselineAndBundlesCLI(t *testing.T) {
	testrace.SkipUnderRace(t)
	k := naiveKernel(t)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	sel := "@TA-02,@TA-10"
	code, _, errOut := conform(t, "run", "-q", "--kernel", k, "--tags", sel, "--report-json", p("r.json"), "--bundle", p("bundles"))
	if code != exitFailed {
		t.Fatalf("naive run: exit %d\n%s", code, errOut)
	}
	if code, out, errOut := conform(t, "baseline", "write", p("bl.yaml"), "--from", p("r.json")); code != 0 {
		t.Fatalf("baseline write: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := conform(t, "run", "-q", "--kernel", k, "--tags", sel, "--baseline", p("bl.yaml"), "--markdown", p("bl.md"), "--report-json", p("bl.json"))
	if code != 0 || !strings.Contains(out, "expected fail") {
		t.Fatalf("run with its baseline: exit %d\n%s%s", code, out, errOut)
	}
	if r := readJSONReport(t, p("bl.json")); r.Baseline == nil || len(r.Baseline.ExpectedFail) == 0 || len(r.Baseline.Unlisted) != 0 {
		t.Fatalf("baseline section: %+v", r.Baseline)
	}
	md, _ := os.ReadFile(p("bl.md"))
	if !strings.Contains(string(md), "## Baseline") {
		t.Errorf("the Markdown report has no baseline section")
	}
	// TA-10 passes on the naive kernel: an entry pinned to its scenario is stale.
	r := readJSONReport(t, p("r.json"))
	var ta10 string
	for _, q := range r.Requirements {
		if q.ID == "TA-10" && q.Status == report.Pass && len(q.Scenarios) > 0 {
			ta10 = q.Scenarios[0]
		}
	}
	if ta10 == "" {
		t.Fatal("TA-10 does not pass on the naive kernel any more; pick another passing requirement")
	}
	bl, _ := os.ReadFile(p("bl.yaml"))
	os.WriteFile(p("stale.yaml"), append(bl, []byte("  - id: TA-10\n    scenarios: [\""+ta10+"\"]\n    reason: once failed\n")...), 0o644)
	if code, out, _ := conform(t, "run", "-q", "--kernel", k, "--tags", sel, "--baseline", p("stale.yaml")); code != 0 || !strings.Contains(out, "1 stale") {
		t.Fatalf("stale, not strict: exit %d\n%s", code, out)
	}
	if code, out, _ := conform(t, "run", "-q", "--kernel", k, "--tags", sel, "--baseline", p("stale.yaml"), "--strict-baseline"); code != exitFailed {
		t.Fatalf("stale, strict: exit %d\n%s", code, out)
	}
	// Bundles: one per failing scenario; one replays to the same failure.
	ents, _ := os.ReadDir(p("bundles"))
	failing := 0
	for _, s := range r.Scenarios {
		if s.Status == report.Fail || s.Status == report.Error {
			failing++
		}
	}
	if failing == 0 || len(ents) != failing {
		t.Fatalf("%d failing scenarios, %d bundles", failing, len(ents))
	}
	one := filepath.Join(p("bundles"), ents[0].Name())
	if code, out, errOut := conform(t, "replay", one, "--kernel", k); code != 0 || !strings.HasPrefix(out, "SAME OUTCOME") {
		t.Fatalf("replay: exit %d\n%s%s", code, out, errOut)
	}
	wantUsage(t, []string{"replay", one}, "give --kernel")
	if code, out, _ := conform(t, "replay", one, "--show"); code != 0 || !strings.Contains(out, "→ request model/stream") {
		t.Fatalf("show: exit %d\n%s", code, out)
	}
}

// The committed example bundle (made on another machine) replays on this
// one to the same failure, and its committed transcript is what --show
// prints.
func TestCommittedBundleExample(t *testing.T) {
	b := repo("reports", "bundle-example")
	want, err := os.ReadFile(repo("reports", "bundle-example.show.txt"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := conform(t, "replay", b, "--show")
	if code != 0 || out != string(want) {
		t.Fatalf("--show: exit %d %s\nthe committed transcript is stale; regenerate it with: conform replay reports/bundle-example --show > reports/bundle-example.show.txt", code, errOut)
	}
	k := naiveKernel(t)
	if code, out, errOut := conform(t, "replay", b, "--kernel", k); code != 0 || !strings.HasPrefix(out, "SAME OUTCOME") {
		t.Fatalf("replay of the committed bundle: exit %d\n%s%s", code, out, errOut)
	}
}

// A fuzz campaign's slices run their share of the cases under seeds derived
// from the campaign's, printed so a failure reproduces with --seed alone.
func TestFuzzShardCLI(t *testing.T) {
	seen := map[string]bool{}
	total := 0
	for _, k := range []string{"1", "2", "3"} {
		code, out, errOut := conform(t, "fuzz", "--shard", k+"/3", "--seed", "5", "--cases", "4", "--real-time=false")
		if code != 0 {
			t.Fatalf("shard %s: exit %d\n%s%s", k, code, out, errOut)
		}
		var n, of int
		var seed string
		for _, l := range strings.Split(out, "\n") {
			if _, err := fmt.Sscanf(l, "conform fuzz: shard "+k+"/3 runs %d of %d cases", &n, &of); err == nil {
				total += n
			}
			if i := strings.LastIndex(l, ", seed "); i >= 0 {
				seed = l[i+len(", seed "):]
			}
		}
		want := fmt.Sprint(shard.Seed(5, shard.Spec{K: int(k[0] - '0'), N: 3}))
		if seed != want || seen[seed] {
			t.Fatalf("shard %s ran seed %q, want %s (distinct):\n%s", k, seed, want, out)
		}
		seen[seed] = true
	}
	if total != 4 {
		t.Fatalf("the slices ran %d cases of 4", total)
	}
}
