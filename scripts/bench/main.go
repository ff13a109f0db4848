// Command bench is make bench (issue 25): it measures the speed figures the
// README states, in one run, each as a ratio against its baseline:
//
//   - the whole suite (--slow) against the reference kernel as a subprocess,
//     against its longest scenario (the floor: the suite cannot end sooner);
//   - wire round trips with schema validation against the same pipe without
//     it, 32 requests in flight (harness/driver's pipelined benchmark), as
//     throughput and as CPU per round trip of both processes;
//   - conform fuzz sessions per second in-process and over the wire (the
//     reference kernel as a subprocess), against the targets 200/s and 50/s,
//     and the CPU each session cost;
//   - mutation campaign CPU time per mutant (a seeded sample, schemata and
//     per-scenario reach), against one build per mutant.
//
// Timings depend on the machine and its load: the load average is printed
// beside them. Nothing here is a verdict.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/conform", "the conform binary (make build)")
	out := flag.String("out", "reports/tmp/bench", "scratch folder")
	cases := flag.Int("cases", 400, "fuzz sessions per figure")
	workers := flag.Int("workers", runtime.NumCPU()+1, "conform fuzz --workers: sessions in flight (one more than the cores keeps them busy while sessions wait)")
	sample := flag.Int("sample", 1, "mutants per refkernel package in the campaign sample (0: skip the campaign figure)")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	fmt.Printf("make bench: %s, load average %s\n", time.Now().UTC().Format(time.RFC3339), loadavg())

	suite, longest := suiteFigure(*bin, *out)
	fmt.Printf("%-44s %8.1f s, longest scenario %.1f s: %.2fx\n", "suite (--slow) vs its longest scenario", suite.Seconds(), longest.Seconds(), suite.Seconds()/longest.Seconds())

	printWire(wireFigure())
	printFuzz(fmt.Sprintf("fuzz sessions, in-process, %d workers", *workers), fuzzFigure(*bin, "", *cases, *workers), 200)
	printFuzz(fmt.Sprintf("fuzz sessions, over the wire, %d workers", *workers), fuzzFigure(*bin, *bin+" kernel", *cases, *workers), 50)

	if *sample > 0 {
		schema, alone, setup, n := campaignFigure(*out, *sample)
		fmt.Printf("%-44s %8.1f CPU s per mutant, %.1f one build each (%d mutants; setup %.0f CPU s once): %.2fx\n",
			"mutation campaign: schemata vs per-mutant build", schema, alone, n, setup, schema/alone)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(2)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// run runs a command and returns its combined output and wall-clock time.
// Exit status 1 (a failing verdict) is not an error of the bench.
func run(env []string, name string, args ...string) (string, time.Duration) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	b, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			fail(fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b))
		}
	}
	return string(b), d
}

func suiteFigure(bin, out string) (time.Duration, time.Duration) {
	path := filepath.Join(out, "suite.json")
	_, took := run(nil, bin, "run", "--kernel", bin+" kernel", "--slow", "-q", "--report-json", path)
	raw, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	var r struct {
		Scenarios []struct {
			DurationMS float64 `json:"duration_ms"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		fail(err)
	}
	longest := 0.0
	for _, s := range r.Scenarios {
		longest = max(longest, s.DurationMS)
	}
	return took, time.Duration(longest * float64(time.Millisecond))
}

var (
	perSecond = regexp.MustCompile(`([0-9.]+) roundtrips/s`)
	cpuPerOp  = regexp.MustCompile(`([0-9.]+) cpu-us/roundtrip`)
)

// wire is the pipelined round-trip figure: throughput and CPU per round trip
// (both processes), validated and not.
type wire struct {
	v, nv       float64 // round trips per second
	vCPU, nvCPU float64 // µs of CPU per round trip
}

// wireFigure alternates the two variants, five rounds each, and takes the
// median of each: on a shared machine a single run says more about the
// neighbours than about the pipe. The test binary is built once, so that
// every round measures the pipe, not the build.
func wireFigure() wire {
	exe := filepath.Join(os.TempDir(), fmt.Sprintf("conform-bench-driver-%d.test", os.Getpid()))
	run(nil, "go", "test", "-c", "-o", exe, "./harness/driver/")
	defer os.Remove(exe)
	bench := func(env []string) (float64, float64) {
		o, _ := run(env, exe, "-test.run", "^$", "-test.bench", "WireRoundTripPipelined$", "-test.benchtime", "2s", "-test.count", "1")
		m, c := perSecond.FindStringSubmatch(o), cpuPerOp.FindStringSubmatch(o)
		if m == nil || c == nil {
			fail(fmt.Errorf("no roundtrips/s and cpu-us/roundtrip in:\n%s", o))
		}
		f, _ := strconv.ParseFloat(m[1], 64)
		cpu, _ := strconv.ParseFloat(c[1], 64)
		return f, cpu
	}
	var v, p, vc, pc []float64
	for range 5 {
		f, c := bench(nil)
		v, vc = append(v, f), append(vc, c)
		f, c = bench([]string{"CONFORM_BENCH_NOVALIDATE=1"})
		p, pc = append(p, f), append(pc, c)
	}
	return wire{median(v), median(p), median(vc), median(pc)}
}

// printWire prints the throughput ratio and the CPU ratio: on an idle
// machine the pipelined throughput is bounded by the CPU per round trip,
// and under load the CPU ratio is the steadier of the two.
func printWire(w wire) {
	fmt.Printf("%-44s %8.0f /s validated, %.0f /s not: %.2fx\n", "wire round trips, pipelined", w.v, w.nv, w.v/w.nv)
	fmt.Printf("%-44s %8.1f us validated, %.1f us not: %.2fx\n", "  CPU per round trip (both processes)", w.vCPU, w.nvCPU, w.nvCPU/w.vCPU)
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

var sessions = regexp.MustCompile(`(\d+) generated sessions kept every invariant \(([^)]+)\)`)

// fuzz is a conform fuzz figure: sessions per second of the campaign, and
// CPU per session of the whole command (its kernels included: a subprocess
// kernel is its child, and a process's CPU as its parent reaps it counts
// the children it reaped).
type fuzz struct {
	perSecond float64
	cpu       time.Duration
}

func fuzzFigure(bin, kernel string, cases, workers int) fuzz {
	args := []string{"fuzz", "--cases", strconv.Itoa(cases), "--seed", "1", "--real-time=false", "--out", os.TempDir(), "--workers", strconv.Itoa(workers)}
	if kernel != "" {
		args = append(args, "--kernel", kernel)
	}
	cmd := exec.Command(bin, args...)
	b, err := cmd.CombinedOutput()
	o := string(b)
	if err != nil {
		fail(fmt.Errorf("conform fuzz: %v\n%s", err, o))
	}
	m := sessions.FindStringSubmatch(o)
	if m == nil {
		fail(fmt.Errorf("conform fuzz did not pass:\n%s", o))
	}
	n, _ := strconv.Atoi(m[1])
	d, err := time.ParseDuration(m[2])
	if err != nil {
		fail(err)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return fuzz{float64(n) / d.Seconds(), cpu / time.Duration(n)}
}

func printFuzz(name string, f fuzz, target float64) {
	fmt.Printf("%-44s %8.1f /s: %.2fx of the %.0f/s target; %.1f ms CPU per session\n", name, f.perSecond, f.perSecond/target, target, float64(f.cpu.Microseconds())/1000)
}

// campaignFigure judges the same seeded sample twice, as a campaign does
// (mutant schemata, each mutant judged by the scenarios reaching it) and as
// campaigns did before (one build per mutant, package scenarios then the
// whole suite), and returns the CPU seconds per mutant of each, the setup
// (unmutated run, reach measurement) left out: it is paid once per
// campaign, not per mutant. CPU, not wall time: the bench shares the machine.
func campaignFigure(out string, sample int) (schema, alone, setup float64, n int) {
	judge := func(name string, flags ...string) (perMutant, setup float64, n int) {
		dir := filepath.Join(out, name)
		args := append([]string{"run", "./cmd/mutate", "-sample", strconv.Itoa(sample), "-out", dir, "-q"}, flags...)
		run(nil, "go", args...)
		raw, err := os.ReadFile(filepath.Join(dir, "mutation.json"))
		if err != nil {
			fail(err)
		}
		var r struct {
			CPU     struct{ Setup, Total float64 } `json:"cpu_s"`
			Mutants []json.RawMessage              `json:"mutants"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			fail(err)
		}
		n = max(len(r.Mutants), 1)
		return (r.CPU.Total - r.CPU.Setup) / float64(n), r.CPU.Setup, n
	}
	schema, setup, n = judge("mutation-schemata")
	alone, _, _ = judge("mutation-alone", "-alone", "-per-scenario=false")
	return schema, alone, setup, n
}
