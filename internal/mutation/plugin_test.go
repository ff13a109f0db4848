package mutation

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A package goes to its owner first, then to every other unit that links
// it, in the order of units; a package no unit links is not judged.
func TestPluginOrder(t *testing.T) {
	units := []PluginUnit{
		{Name: "a", Owns: []string{"t/a", "t/shared"}},
		{Name: "b", Owns: []string{"t/b", "t/root"}},
		{Name: "c", Owns: []string{"t/c", "t/notlinked"}},
	}
	deps := map[string][]string{
		"a": {"t/root", "t/a", "t/shared"},
		"b": {"t/root", "t/b"},
		"c": {"t/root", "t/shared", "t/c"},
	}
	want := map[string][]string{
		"t/a": {"a"}, "t/b": {"b"}, "t/c": {"c"},
		"t/shared": {"a", "c"},
		"t/root":   {"b", "a", "c"},
	}
	if diff := cmp.Diff(want, pluginOrder(units, deps)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// The committed units own packages their mains really link, and every
// plugin package of refplugin is judged by some unit (go list -deps of the
// real mains); the kill matrices' helpers are linked by none.
func TestPluginUnitsLinkWhatTheyOwn(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, _ := filepath.Abs("../..")
	j := &judge{root: root, goTool: goTool}
	units := PluginUnits()
	deps, err := unitDeps(context.Background(), j, units, "refplugin")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		for _, p := range u.Owns {
			if !slices.Contains(deps[u.Name], p) {
				t.Errorf("%s owns %s but %s does not link it", u.Name, p, u.Main)
			}
		}
	}
	order := pluginOrder(units, deps)
	for _, p := range []string{"refplugin", "refplugin/model", "refplugin/refcontext", "refplugin/refmemory", "refplugin/refkit"} {
		if len(order[p]) == 0 {
			t.Errorf("no unit judges %s", p)
		}
	}
	if got := order["refplugin"][0]; got != "refplugin" {
		t.Errorf("the tool provider's package is judged first by %s, want refplugin", got)
	}
	if got := order["refplugin/refkit"]; !slices.Equal(got, []string{"refcontext", "refmemory"}) {
		t.Errorf("refkit is judged by %v, want refcontext then refmemory", got)
	}
	for _, p := range []string{"refplugin/refkit/matrix", "refplugin/mutants", "refplugin/model/mutants"} {
		if len(order[p]) > 0 {
			t.Errorf("%s (a kill matrix helper) is judged by %v", p, order[p])
		}
	}
}

// A later unit's verdict replaces an earlier one only when it says more: a
// kill over a survivor, a reached survivor over an unreached one.
func TestBetterVerdict(t *testing.T) {
	surv := Result{Status: Survived, Reached: ReachedYes}
	unreached := Result{Status: Survived, Reached: ReachedNo}
	kill := Result{Status: Killed}
	for _, c := range []struct {
		name     string
		r, old   Result
		replaces bool
	}{
		{"kill over survivor", kill, surv, true},
		{"kill over unreached", kill, unreached, true},
		{"survivor over kill", surv, kill, false},
		{"reached over unreached", surv, unreached, true},
		{"unreached over reached", unreached, surv, false},
		{"survivor over not viable", surv, Result{Status: NotViable}, false},
		{"timeout over survivor", Result{Status: TimedOut}, surv, true},
	} {
		if got := better(c.r, c.old); got != c.replaces {
			t.Errorf("%s: better = %v, want %v", c.name, got, c.replaces)
		}
	}
}

// The invocation is the one make plugin / plugin-ctxmem runs, with the
// seed fixed and the schema switch passed through conform's --env (a
// plugin gets PATH, HOME and TMPDIR only).
func TestPluginArgs(t *testing.T) {
	u := PluginUnits()
	got := u[3].pluginArgs("/w/bin", u[3].Runs[0], 7, "/w/r.json", "/w/scratch", []string{"CONFORM_MUTANT=12"})
	want := []string{"plugin", "-q", "--plugin", "/w/bin", "--require", "all", "--seed", "7", "--report-json", "/w/r.json",
		"--allow-effects", "/w/scratch", "--process-backed", "exec", "--env", "CONFORM_MUTANT=12"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool provider (-want +got):\n%s", diff)
	}
	got = u[1].pluginArgs("/w/bin", u[1].Runs[1], 1, "/w/r.json", "/w/scratch", nil)
	want = []string{"plugin", "-q", "--plugin", "/w/bin -compactor", "--require", "all", "--seed", "1", "--report-json", "/w/r.json",
		"--category", "context"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context compactor (-want +got):\n%s", diff)
	}
}

// Only the survivors of a package go on to the next unit.
func TestSurvivorsOf(t *testing.T) {
	m := func(pkg, key string) Mutant { return Mutant{Package: pkg, Key: key} }
	final := map[string]Result{
		"1": {Mutant: m("p", "k1"), Status: Survived, Reached: ReachedNo},
		"2": {Mutant: m("p", "k2"), Status: Killed},
		"3": {Mutant: m("p", "k3"), Status: Survived, Reached: ReachedYes},
		"4": {Mutant: m("q", "k4"), Status: Survived},
		"5": {Mutant: m("p", "k5"), Status: NotViable},
	}
	if diff := cmp.Diff([]string{"k1", "k3"}, survivorsOf(final, "p")); diff != "" {
		t.Errorf("survivors (-want +got):\n%s", diff)
	}
}

// fakePluginConform stands in for conform plugin: it writes a report with one
// requirement, failing when the plugin command contains "fail-seed" and
// the seed it names, and exits 2 (could not launch) for "nolaunch".
const fakePluginConform = `#!/bin/sh
seed= rep= plugin=
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) seed=$2; shift;;
    --report-json) rep=$2; shift;;
    --plugin) plugin=$2; shift;;
  esac
  shift
done
echo "$seed" >> "$(dirname "$rep")/seeds"
case "$plugin" in *nolaunch*) echo "plugin exited before handshake" >&2; exit 2;; esac
status=pass
case "$plugin" in *fail-seed$seed*) status=fail;; esac
printf '{"requirements":[{"id":"MP-01","status":"%s"}]}' "$status" > "$rep"
[ "$status" = pass ]
`

func TestPluginRunVerdicts(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	conform := filepath.Join(dir, "conform")
	if err := os.WriteFile(conform, []byte(fakePluginConform), 0o755); err != nil {
		t.Fatal(err)
	}
	u := &PluginUnit{Name: "x", Conform: conform, Seeds: []uint64{1, 2},
		Runs: []PluginRun{{Require: "should"}, {Args: []string{"-variant"}, Require: "all"}}}
	j := &judge{timeout: time.Minute, now: time.Now}
	for _, c := range []struct {
		bin     string
		status  Status
		failing []string
		seeds   string // the seeds of the runs, in order
	}{
		{"ok", Survived, nil, "1\n1\n2\n2\n"},
		{"fail-seed1", Killed, []string{"MP-01"}, "1\n"},
		// A survivor of the first seed is confirmed under the second,
		// which kills it.
		{"fail-seed2", Killed, []string{"MP-01"}, "1\n1\n2\n"},
		// Could not launch, twice: a kill.
		{"nolaunch", Killed, nil, "1\n1\n"},
	} {
		w := filepath.Join(dir, c.bin)
		if err := os.MkdirAll(w, 0o755); err != nil {
			t.Fatal(err)
		}
		v := u.runExe(context.Background(), j, exe{bin: filepath.Join(w, c.bin), dir: w})
		if v.status != c.status || !slices.Equal(v.failing, c.failing) {
			t.Errorf("%s: %s %v (%s), want %s %v", c.bin, v.status, v.failing, v.detail, c.status, c.failing)
		}
		seeds, _ := os.ReadFile(filepath.Join(w, "seeds"))
		if string(seeds) != c.seeds {
			t.Errorf("%s: seeds run %q, want %q", c.bin, seeds, c.seeds)
		}
	}
}

// A conform run killed at the timeout must not leave its plugin behind:
// the plugin runs in a process group of its own, which killing conform
// does not reach. The stand-in starts a child in a session of its own and
// hangs; after the timeout the child must be gone.
func TestPluginTimeoutLeavesNoPlugin(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	conform := filepath.Join(dir, "conform")
	script := "#!/bin/sh\nsetsid sleep 300 &\necho $! > " + filepath.Join(dir, "child") + "\nsleep 300\n"
	if err := os.WriteFile(conform, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	u := &PluginUnit{Name: "x", Conform: conform, Seeds: []uint64{1}, Runs: []PluginRun{{Require: "all"}}}
	j := &judge{timeout: 2 * time.Second, now: time.Now}
	v := u.runOne(context.Background(), j, exe{bin: "plugin", dir: dir}, u.Runs[0], 1, 0)
	if v.status != TimedOut {
		t.Fatalf("status %s (%s), want timeout", v.status, v.detail)
	}
	b, err := os.ReadFile(filepath.Join(dir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the plugin (pid %d) outlived conform's timeout", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports a process that exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 {
		return s[i+2] != 'Z'
	}
	return true
}
