package mutation

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// reach is which statements of the mutated tree the whole suite executes
// against the unmutated kernel, from one run of a coverage build. A mutant
// whose statement no scenario executes cannot be killed: the mutated
// program behaves exactly as the original on every run of the suite. Such
// a mutant is a survivor without being judged, marked as not reached, so
// the campaign spends its time on the others.
type reach struct {
	blocks map[string][]coverBlock // by module-relative file
	// With per-scenario reach (scenarios.go): the tagged copy of the
	// feature files and its scenarios, which coverBlock.units index.
	features string
	units    []scenarioUnit
	failed   []bool          // by unit: its coverage run failed (a kernel unit's baseline)
	took     []time.Duration // by unit: its coverage run's wall time
	cpu      []time.Duration // by unit: its coverage run's CPU time
	// sets are the folders featuresOf made, by their files.
	setsMu sync.Mutex
	sets   map[string]string
}

type coverBlock struct {
	l0, c0, l1, c1 int
	hit            bool
	units          []int // the scenarios that executed it, per-scenario reach only
}

func (b coverBlock) contains(line, col int) bool {
	after := line > b.l0 || line == b.l0 && col >= b.c0
	before := line < b.l1 || line == b.l1 && col < b.c1
	return after && before
}

// Reached values of a Result.
const (
	ReachedYes = "yes"
	ReachedNo  = "no"
)

// measureReach builds the program with coverage of tree and the target,
// runs the whole suite once and reads which blocks ran.
func measureReach(ctx context.Context, j *judge, tree string) (*reach, error) {
	dir := filepath.Join(j.tmp, "coverage")
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "conform")
	// The target's own package must be covered too, or the coverage
	// runtime never writes its counters at exit.
	pkgs := "./" + tree + "/...," + j.target
	if out, err := j.goCmd(ctx, "build", "-cover", "-coverpkg="+pkgs, "-o", bin, j.target); err != nil {
		return nil, fmt.Errorf("coverage build: %v: %s", err, firstLines(out, 3))
	}
	cmd := exec.CommandContext(ctx, bin, "run", "-q", "--slow", "--require", "all")
	cmd.Dir = dir
	cmd.Env = append(runEnv(), "GOCOVERDIR="+data)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("coverage run: %v: %s", err, firstLines(string(out), 3))
	}
	return j.coverage(ctx, dir, data)
}

func (j *judge) goCmd(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, j.goTool, args...)
	cmd.Dir = j.root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// coverage reads what the coverage runs wrote to data (GOCOVERDIR) as
// the statements they reached.
func (j *judge) coverage(ctx context.Context, dir, data string) (*reach, error) {
	profile := filepath.Join(dir, "cover.out")
	if out, err := j.goCmd(ctx, "tool", "covdata", "textfmt", "-i="+data, "-o="+profile); err != nil {
		return nil, fmt.Errorf("coverage profile: %v: %s", err, firstLines(out, 3))
	}
	mod, err := modulePath(j.root)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(profile)
	if err != nil {
		return nil, err
	}
	return parseProfile(b, mod)
}

// parseProfile reads a text coverage profile ("mode: set" and lines of
// "import/path/file.go:l0.c0,l1.c1 stmts count").
func parseProfile(b []byte, module string) (*reach, error) {
	r := &reach{blocks: map[string][]coverBlock{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 && strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		colon := strings.LastIndex(line, ":")
		fields := strings.Fields(line[colon+1:])
		if colon < 0 || len(fields) != 3 {
			return nil, fmt.Errorf("coverage profile line %d: %q", n, line)
		}
		var blk coverBlock
		if _, err := fmt.Sscanf(fields[0], "%d.%d,%d.%d", &blk.l0, &blk.c0, &blk.l1, &blk.c1); err != nil {
			return nil, fmt.Errorf("coverage profile line %d: %w", n, err)
		}
		count, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("coverage profile line %d: %w", n, err)
		}
		blk.hit = count > 0
		file := strings.TrimPrefix(line[:colon], module+"/")
		r.blocks[file] = append(r.blocks[file], blk)
	}
	return r, sc.Err()
}

// at says whether the statement at file:line:col ran: ReachedYes, ReachedNo,
// or "" when no block covers it (a declaration outside any function).
func (r *reach) at(file string, line, col int) string {
	if r == nil {
		return ""
	}
	covered := false
	for _, b := range r.blocks[file] {
		if b.contains(line, col) {
			if b.hit {
				return ReachedYes
			}
			covered = true
		}
	}
	if covered {
		return ReachedNo
	}
	return ""
}

func modulePath(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod names no module", root)
}
