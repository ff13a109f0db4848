package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/baseline"
	"github.com/agentconform/conform/harness/bundle"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/harness/shard"
	"github.com/agentconform/conform/spec"
	"github.com/agentconform/conform/spec/wire"
)

// bundleStderr is how much of a kernel's stderr a run that writes bundles
// keeps per kernel, so that a bundle holds all a scenario's kernel wrote.
const bundleStderr = 1 << 20

// ciRun is what --baseline, --shard, --durations and --bundle add to a run,
// prepared before any kernel starts.
type ciRun struct {
	baseline     *baseline.File
	baselineName string
	strict       bool
	bundles      *bundle.Writer
}

// prepareCI checks the CI flags and wires them into the run's options.
func prepareCI(cmd *cobra.Command, f runFlags, opt *runner.Options) (*ciRun, error) {
	ci := &ciRun{baselineName: f.baseline, strict: f.strictBaseline}
	if f.strictBaseline && f.baseline == "" {
		return nil, usage("--strict-baseline needs --baseline FILE")
	}
	cat, err := spec.Load()
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	if f.baseline != "" {
		if ci.baseline, err = baseline.Load(f.baseline, cat); err != nil {
			return nil, usage("--baseline %s: %v", f.baseline, unwrapPath(err))
		}
	}
	sh, err := shard.Parse(f.shard)
	if err != nil {
		return nil, usage("--shard %v", err)
	}
	if f.durations != "" && sh.Whole() {
		return nil, usage("--durations balances --shard K/N; give --shard too")
	}
	if !sh.Whole() {
		if err := selectShard(f, sh, opt); err != nil {
			return nil, err
		}
	}
	if f.bundle != "" {
		if err := emptyBundleDir(f.bundle); err != nil {
			return nil, err
		}
		ci.bundles = &bundle.Writer{
			Dir:         f.bundle,
			Versions:    bundle.Versions{Version: runner.Version, Protocol: wire.Version, CatalogVersion: cat.Version},
			CommandLine: commandLine(cmd),
			Run:         bundle.RunSettings{ScenarioTimeoutMS: float64(f.timeout) / float64(time.Millisecond), TimeoutMultiplier: f.multiplier},
		}
		opt.Capture = ci.bundles.Capture
		if sub, ok := opt.Launcher.(adapter.Subprocess); ok {
			sub.StderrKept = bundleStderr
			opt.Launcher = sub
		}
	}
	return ci, nil
}

// selectShard narrows the run to slice sh of the selection.
func selectShard(f runFlags, sh shard.Spec, opt *runner.Options) error {
	refs, err := runner.SelectRun(opt.FS, opt.Root, f.tags, f.slow)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	items := make([]shard.Item, len(refs))
	for i, r := range refs {
		items[i] = shard.Item{Ref: fmt.Sprintf("%s:%d", r.File, r.Line)}
	}
	var durations map[string]time.Duration
	if f.durations != "" {
		prev, err := readReport(f.durations)
		if err != nil {
			return usage("--durations %s: %v", f.durations, err)
		}
		durations = map[string]time.Duration{}
		for _, s := range prev.Scenarios {
			if s.Status != report.NotRun {
				durations[s.Ref()] = s.Duration
			}
		}
		if len(durations) == 0 {
			return usage("--durations %s: the report has no scenario that ran", f.durations)
		}
	}
	mine, balance := shard.Assign(items, durations, sh)
	keep := map[string]bool{}
	for _, r := range mine {
		keep[r] = true
	}
	opt.Only = func(r runner.ScenarioRef) bool { return keep[fmt.Sprintf("%s:%d", r.File, r.Line)] }
	opt.Shard = &report.ShardInfo{K: sh.K, N: sh.N, Balance: string(balance), Selected: len(refs)}
	return nil
}

// emptyBundleDir refuses a folder that already holds bundles: bundles of
// two runs side by side would read as one run's failures.
func emptyBundleDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usage("--bundle %s: %v", dir, unwrapPath(err))
		}
		return nil
	case err != nil:
		return usage("--bundle %s: %v", dir, unwrapPath(err))
	case !st.IsDir():
		return usage("--bundle %s is a file; give a folder", dir)
	}
	if found, _ := bundle.Find(dir); len(found) > 0 {
		return usage("--bundle %s already holds %d repro bundles of an earlier run; give an empty or new folder", dir, len(found))
	}
	return nil
}

// commandLine is how conform was started, from the flags cobra parsed (the
// process's own argv is a test binary's under go test). Secrets are
// redacted by the bundle writer.
func commandLine(cmd *cobra.Command) string {
	parts := []string{cmd.CommandPath()}
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		vals := []string{fl.Value.String()}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			parts = append(parts, "--"+fl.Name+"="+quote(v))
		}
	})
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"'\\$`") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// finishCI applies the baseline and writes the bundles' manifests once the
// report is known (and redacted).
func (ci *ciRun) finish(cmd *cobra.Command, r *report.Report) error {
	if ci.baseline != nil {
		baseline.Apply(r, ci.baseline, ci.baselineName, ci.strict)
	}
	if ci.bundles == nil {
		return nil
	}
	dirs, err := ci.bundles.Finish(r.Kernel)
	if len(dirs) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "conform: wrote %d repro bundles under %s (conform replay DIR --show)\n", len(dirs), ci.bundles.Dir)
	}
	if err != nil {
		return fmt.Errorf("--bundle %s: %w", ci.bundles.Dir, err)
	}
	return nil
}

// gate is the exit decision of a run or a merge: failing requirements at
// the level not covered by the baseline, stale entries under
// --strict-baseline, and varying outcomes.
func gate(r *report.Report, level string) error {
	failing, stale := baseline.Gate(r, level)
	var why []string
	if len(failing) > 0 {
		why = append(why, fmt.Sprintf("%d requirements at level %s fail or err", len(failing), level))
	}
	if len(stale) > 0 {
		why = append(why, fmt.Sprintf("%d baseline entries are stale (--strict-baseline)", len(stale)))
	}
	if r.Stability != nil && r.Stability.Varied {
		why = append(why, fmt.Sprintf("outcomes varied over %d runs: %d scenarios, %d requirements", r.Stability.Runs, len(r.Stability.Scenarios), len(r.Stability.Requirements)))
	}
	if len(why) > 0 {
		return &exitError{exitFailed, errors.New(strings.Join(why, "; "))}
	}
	return nil
}

// withBaselineSections makes the Markdown report carry the baseline
// section, when there is one.
func withBaselineSections(outs []reportOut) []reportOut {
	for i := range outs {
		if outs[i].flag != "--markdown" {
			continue
		}
		write := outs[i].write
		outs[i].write = func(w io.Writer, r *report.Report) error {
			if err := write(w, r); err != nil {
				return err
			}
			return baseline.WriteMarkdown(w, r.Baseline)
		}
	}
	return outs
}

// readReport reads a JSON report conform wrote, checked against the schema
// so that any other JSON is refused with the reason.
func readReport(path string) (*report.Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, unwrapPath(err)
	}
	if err := report.ValidateJSON(spec.ReportSchema, raw); err != nil {
		return nil, err
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
