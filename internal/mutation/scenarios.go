package mutation

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Per-scenario reach (PerScenario): which scenarios execute each statement
// of the mutated tree, from one coverage run per scenario of the unmutated
// kernel. A mutant is then judged by the scenarios that execute its
// statement and by no other: every other scenario runs the mutated program
// exactly as it runs the original, so running it would cost time and could
// not change the verdict. That replaces the package's scenarios followed by
// the whole suite for every survivor, which cost most of a campaign (a
// whole suite is about 7 CPU seconds; the scenarios reaching a statement
// are usually a few). A run of a few scenarios selected by tag is cheap
// (godog drops the others before it sets them up), so each scenario of a
// copy of the feature files gets a tag of its own, unitTag.

// scenarioUnit is one scenario of the suite (an outline with all its
// examples) in the tagged copy of the feature files.
type scenarioUnit struct {
	File string // feature file, relative to the features folder
	Line int    // line of its Scenario keyword in the original file
	Tag  string // its own tag, e.g. @mut_s12
	// Slow is set when the scenario is tagged @slow: it waits out real
	// schedules (a minute for ER-01's twenty retries), so its coverage run
	// starts first and does not end the setup alone.
	Slow bool
	// Tags are the scenario's own tags (its last tag line), space-separated.
	Tags string
}

var scenarioKeyword = regexp.MustCompile(`^\s*(Scenario|Scenario Outline|Scenario Template|Example):`)

// unitPrefix starts the tag of every scenario in the tagged copy; it is not
// shaped like a requirement ID, so the runner does not check it against
// the catalog.
const unitPrefix = "@mut_s"

// tagScenarios copies the .feature files of src into dst, giving every
// scenario a tag of its own at the end of its last tag line (or on a new
// line before it), and lists the scenarios.
func tagScenarios(src, dst string) ([]scenarioUnit, error) {
	files, err := filepath.Glob(filepath.Join(src, "*.feature"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no .feature files in %s", src)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	slices.Sort(files)
	var units []scenarioUnit
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var out []string
		for i, l := range strings.Split(string(b), "\n") {
			if scenarioKeyword.MatchString(l) {
				u := scenarioUnit{File: filepath.Base(f), Line: i + 1, Tag: unitPrefix + strconv.Itoa(len(units)+1)}
				if n := len(out) - 1; n >= 0 && strings.HasPrefix(strings.TrimSpace(out[n]), "@") {
					u.Tags = strings.Join(strings.Fields(out[n]), " ")
					u.Slow = slices.Contains(strings.Fields(out[n]), "@slow")
					units = append(units, u)
					out[n] += " " + u.Tag
				} else {
					units = append(units, u)
					out = append(out, strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " \t")))+u.Tag)
				}
			}
			out = append(out, l)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), []byte(strings.Join(out, "\n")), 0o644); err != nil {
			return nil, err
		}
	}
	return units, nil
}

// measureScenarioReach builds the program with coverage of tree, runs every
// scenario of the tagged copy alone (jobs at a time, each writing its own
// counters) and records, for every block, the scenarios that executed it,
// and how long each scenario took (its runs against a mutant are timed out
// by that, runTimeout). The @slow scenarios start first: ER-01's minute of
// retries started late would end the setup a minute after everything else.
func measureScenarioReach(ctx context.Context, j *judge, tree string, jobs int) (*reach, error) {
	dir := filepath.Join(j.tmp, "coverage")
	features := filepath.Join(dir, "features")
	units, err := tagScenarios(filepath.Join(j.root, "features"), features)
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "conform")
	pkgs := "./" + tree + "/...," + j.target
	build := exec.CommandContext(ctx, j.goTool, "build", "-cover", "-coverpkg="+pkgs, "-ldflags="+linkFlags, "-o", bin, j.target)
	build.Dir = j.root
	out, err := build.CombinedOutput()
	j.tally.add(&j.tally.coverage, cpuOf(build.ProcessState))
	if err != nil {
		return nil, fmt.Errorf("coverage build: %v: %s", err, firstLines(string(out), 3))
	}
	mod, err := modulePath(j.root)
	if err != nil {
		return nil, err
	}
	// The covdata tool is run once per scenario: found once, not through
	// the go command each time.
	covdata, err := j.goCmd(ctx, "tool", "-n", "covdata")
	if err != nil {
		return nil, fmt.Errorf("go tool -n covdata: %v: %s", err, firstLines(covdata, 3))
	}
	covdata = strings.TrimSpace(covdata)
	r := &reach{blocks: map[string][]coverBlock{}, features: features, units: units, took: make([]time.Duration, len(units)), cpu: make([]time.Duration, len(units)), failed: make([]bool, len(units))}
	index := map[string]map[[4]int]int{} // file -> block -> position in r.blocks[file]
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		next  = make(chan int)
	)
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				p, took, cpu, failed, err := unitProfile(ctx, j, covdata, bin, dir, r.featuresOf([]int{u}), u, units[u])
				var prof *reach
				if err == nil {
					prof, err = parseProfile(p, mod)
				}
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if err == nil {
					r.merge(prof, u, index)
					r.took[u], r.cpu[u], r.failed[u] = took, cpu, failed
				}
				mu.Unlock()
			}
		}()
	}
	order := make([]int, len(units))
	for u := range order {
		order[u] = u
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case units[a].Slow && !units[b].Slow:
			return -1
		case units[b].Slow && !units[a].Slow:
			return 1
		}
		return 0
	})
	for _, u := range order {
		select {
		case next <- u:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r, first
}

// unitProfile runs scenario u alone on the coverage build, from features
// (a folder holding its file, reach.featuresOf), and returns its
// text profile, the run's wall and CPU time, and whether the scenario
// failed. Against the embedded kernel the verdict does not matter here:
// what it executed does; a kernel unit is judged only by the scenarios it
// passes (kitkernel.go).
func unitProfile(ctx context.Context, j *judge, covdata, bin, dir, features string, u int, unit scenarioUnit) (_ []byte, took, cpu time.Duration, failed bool, _ error) {
	data := filepath.Join(dir, "data", strconv.Itoa(u))
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, 0, 0, false, err
	}
	run := filepath.Join(dir, "run", strconv.Itoa(u))
	if err := os.MkdirAll(run, 0o755); err != nil {
		return nil, 0, 0, false, err
	}
	cov := "GOCOVERDIR=" + data
	prog, args := j.command(bin, []string{"run", "-q", "--slow", "--require", "all", "--features", features, "--tags", unit.Tag}, []string{cov})
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = run
	cmd.Env = append(runEnv(), cov)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took, cpu = time.Since(start), cpuOf(cmd.ProcessState)
	j.tally.add(&j.tally.coverage, cpu)
	if err != nil {
		var exit *exec.ExitError
		if ctx.Err() != nil || !(errors.As(err, &exit) && exit.ExitCode() == 1) {
			return nil, 0, 0, false, fmt.Errorf("coverage run of %s:%d: %v: %s", unit.File, unit.Line, err, firstLines(string(out), 3))
		}
		failed = true
	}
	profile := filepath.Join(dir, "run", strconv.Itoa(u)+".out")
	text := exec.CommandContext(ctx, covdata, "textfmt", "-i="+data, "-o="+profile)
	out, err = text.CombinedOutput()
	j.tally.add(&j.tally.coverage, cpuOf(text.ProcessState))
	if err != nil {
		return nil, 0, 0, false, fmt.Errorf("coverage profile of %s:%d: %v: %s", unit.File, unit.Line, err, firstLines(string(out), 3))
	}
	p, err := os.ReadFile(profile)
	return p, took, cpu, failed, err
}

// merge adds one scenario's profile to r: every block it lists is known,
// and the blocks it executed name scenario u.
func (r *reach) merge(p *reach, u int, index map[string]map[[4]int]int) {
	for file, blocks := range p.blocks {
		if index[file] == nil {
			index[file] = map[[4]int]int{}
		}
		for _, b := range blocks {
			k := [4]int{b.l0, b.c0, b.l1, b.c1}
			at, ok := index[file][k]
			if !ok {
				at = len(r.blocks[file])
				index[file][k] = at
				r.blocks[file] = append(r.blocks[file], coverBlock{l0: b.l0, c0: b.c0, l1: b.l1, c1: b.c1})
			}
			if b.hit {
				r.blocks[file][at].hit = true
				r.blocks[file][at].units = append(r.blocks[file][at].units, u)
			}
		}
	}
}

// scenarioTags is the tag expression selecting the scenarios that execute
// the statement at file:line:col, "" when per-scenario reach was not
// measured or the place is in no function (a package-level declaration:
// every scenario may depend on it). A place in a function but in no block
// — a case expression of a switch, which coverage does not count — takes
// the scenarios that executed any block of its innermost function: every
// scenario that evaluates the expression calls the function.
func (r *reach) scenarioTags(file string, line, col int, src []byte) string {
	us := r.reaching(file, line, col, src)
	tags := make([]string, len(us))
	for i, u := range us {
		tags[i] = r.units[u].Tag
	}
	return strings.Join(tags, ",")
}

// reaching lists the scenarios (indexes of r.units) that execute the
// statement at file:line:col, as scenarioTags selects them.
func (r *reach) reaching(file string, line, col int, src []byte) []int {
	if r == nil || r.units == nil {
		return nil
	}
	var us []int
	for _, b := range r.blocks[file] {
		if b.contains(line, col) {
			us = append(us, b.units...)
		}
	}
	if len(us) == 0 {
		if f, ok := enclosingFunc(src, line, col); ok {
			for _, b := range r.blocks[file] {
				if f.contains(b.l0, b.c0) {
					us = append(us, b.units...)
				}
			}
		}
	}
	slices.Sort(us)
	return slices.Compact(us)
}

// all lists every scenario whose coverage run was measured.
func (r *reach) all() []int {
	if r == nil {
		return nil
	}
	var us []int
	for u, took := range r.took {
		if took > 0 {
			us = append(us, u)
		}
	}
	return us
}

// split divides scenarios us into those tagged with one of ids (the
// requirements the mutated package's doc.go names) and the others. A
// mutant is judged by the first group, then, only if it survives them, by
// the second: together they are exactly the scenarios that reach it, so
// the verdict is the same, but a run stops at its first failure, and most
// kills come from the package's own scenarios (767 of 940 kills in the
// last campaign judged by package, then whole suite), so a kill no longer
// waits on, and pays for, the dozens of other reaching scenarios that start
// beside it. A survivor pays one more start of conform (about 0.4 CPU s).
func (r *reach) split(us []int, ids []string) (own, others []int) {
	for _, u := range us {
		mine := false
		for _, t := range strings.Fields(r.units[u].Tags) {
			if slices.Contains(ids, strings.TrimPrefix(t, "@")) {
				mine = true
				break
			}
		}
		if mine {
			own = append(own, u)
		} else {
			others = append(others, u)
		}
	}
	return own, others
}

// tagsOf is the tag expression selecting scenarios us.
func (r *reach) tagsOf(us []int) string {
	tags := make([]string, len(us))
	for i, u := range us {
		tags[i] = r.units[u].Tag
	}
	return strings.Join(tags, ",")
}

// featuresOf is a folder holding only the feature files (of the tagged
// copy) that hold scenarios us, for a run that selects those scenarios:
// conform parses every feature file it is given, three times over, before
// it runs a scenario (about a third of a one-scenario run's CPU time with
// all 39 files), and a file holding none of the selected scenarios adds
// nothing to the run but that. The files are the tagged copies
// themselves (hard links, or copies where links fail), so each selected
// scenario runs from the same text, with its file's background and tags.
// Folders are made once per set of files; any failure gives the whole
// tagged copy, which selects the same scenarios.
func (r *reach) featuresOf(us []int) string {
	var files []string
	for _, u := range us {
		if !slices.Contains(files, r.units[u].File) {
			files = append(files, r.units[u].File)
		}
	}
	slices.Sort(files)
	key := strings.Join(files, "\x00")
	r.setsMu.Lock()
	defer r.setsMu.Unlock()
	if dir, ok := r.sets[key]; ok {
		return dir
	}
	if r.sets == nil {
		r.sets = map[string]string{}
	}
	dir := filepath.Join(filepath.Dir(r.features), "sets", strconv.Itoa(len(r.sets)+1))
	r.sets[key] = r.features
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r.features
	}
	for _, f := range files {
		if linkOrCopy(filepath.Join(r.features, f), filepath.Join(dir, f)) != nil {
			return r.features
		}
	}
	r.sets[key] = dir
	return dir
}

func linkOrCopy(from, to string) error {
	if os.Link(from, to) == nil {
		return nil
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// nominal is how long a run of scenarios us takes against the unmutated
// kernel, in two parts: the longest of them, by its wall time (they run in
// parallel, so one waiting out a minute of retries bounds the run), and
// the others' CPU time shared by the cores. Both come from the coverage
// runs, many at once on a busy machine: a scenario's wall time there is
// mostly waiting for a core (a one-second scenario took 5 s among 32
// coverage runs), so the others are counted by their CPU time, which load
// does not stretch. Each coverage run's CPU time is mostly the start of its
// own process (the cheapest run's time, about 0.4 s, against 6.5 CPU s for
// the whole suite in one process), which a run of them together pays once
// (startAllowance): the others count beyond that. The coverage counters
// keep both parts above what a judged run needs.
func (r *reach) nominal(us []int, cores int) (longest, rest time.Duration) {
	at, sum := -1, time.Duration(0)
	for _, u := range us {
		if u < len(r.took) && (at < 0 || r.took[u] > r.took[at]) {
			at = u
		}
	}
	start := time.Duration(0)
	for u, c := range r.cpu {
		if c > 0 && (start == 0 || c < start) {
			start = r.cpu[u]
		}
	}
	for _, u := range us {
		if u < len(r.cpu) && u != at {
			sum += max(0, r.cpu[u]-start)
		}
	}
	if at >= 0 {
		longest = r.took[at]
	}
	return longest, sum / time.Duration(max(cores, 1))
}

// cpuOf is the CPU time the coverage runs of the scenarios us used, summed.
func (r *reach) cpuOf(us []int) time.Duration {
	var sum time.Duration
	for _, u := range us {
		if u < len(r.cpu) {
			sum += r.cpu[u]
		}
	}
	return sum
}

// enclosingFunc is the extent of the innermost function declaration or
// literal holding line:col in src.
func enclosingFunc(src []byte, line, col int) (coverBlock, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return coverBlock{}, false
	}
	var best coverBlock
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			s, e := fset.Position(n.Pos()), fset.Position(n.End())
			b := coverBlock{l0: s.Line, c0: s.Column, l1: e.Line, c1: e.Column}
			if b.contains(line, col) {
				best, found = b, true // Inspect goes outside in: the last is the innermost
			}
		}
		return true
	})
	return best, found
}
