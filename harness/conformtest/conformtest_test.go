package conformtest

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/server"
	"github.com/agentconform/conform/spec"
)

// TestMain lets the test binary serve the reference kernel on stdio, so the
// subprocess path is checked without building the CLI.
func TestMain(m *testing.M) {
	if os.Getenv("CONFORM_SERVE_REFKERNEL") == "1" {
		if err := serve(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

func serve(ctx context.Context, in io.Reader, out io.Writer) error {
	return server.Serve(ctx, refkernel.New(refkernel.DefaultParts()), in, out)
}

// The reference kernel passes every requirement the suite covers, at every
// level, and gives the same verdicts in-process and as a subprocess. The
// in-process run is also the one checkAttribution reads: the suite runs once
// per way of launching the kernel, not once per assertion.
func TestReferenceKernel(t *testing.T) {
	testrace.SkipUnderRace(t)
	in := TestKernel(t, adapter.InProcess{Name: "reference", Serve: serve}, Options{Require: "all"})
	t.Run("attribution", func(t *testing.T) { checkAttribution(t, in) })
	t.Run("clause map", func(t *testing.T) { checkClauseMap(t, in) })
	sub := TestKernel(t, adapter.Subprocess{Argv: []string{os.Args[0]}, Env: []string{"CONFORM_SERVE_REFKERNEL=1"}}, Options{Require: "all"})
	verdicts := func(r *report.Report) map[string]report.Status {
		m := map[string]report.Status{}
		for _, q := range r.Requirements {
			m[q.ID] = q.Status
		}
		return m
	}
	if diff := cmp.Diff(verdicts(in), verdicts(sub)); diff != "" {
		t.Errorf("in-process and subprocess verdicts differ (-in-process +subprocess):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	if err := report.ValidateJSON(spec.ReportSchema, buf.Bytes()); err != nil {
		t.Errorf("the JSON report does not match spec/report.schema.json: %v", err)
	}
	for _, q := range in.Requirements {
		// Unverifiable (SA-16) is an honest verdict of its own, not a miss.
		if q.Status != report.Pass && q.Status != report.NotTested && q.Status != report.Unverifiable {
			t.Errorf("%s: %s", q.ID, q.Status)
		}
	}
}

// concurrencyTags select the scenarios whose kernel and harness code runs
// concurrently: parallel and keyed tool calls, concurrent observers,
// sub-agent caps and cancellation cascades, cancelled turns and tools.
const concurrencyTags = "@TA-14,@TA-16,@TA-28,@TA-30,@HD-07,@SA-03,@SA-08,@SA-14,@DF-07,@DF-08,@DF-09"

// Under the race detector the reference kernel runs in-process on the
// scenarios where concurrency is under test (the whole suite runs without
// -race in TestReferenceKernel, make e2e).
func TestReferenceKernelConcurrencyUnderRace(t *testing.T) {
	if !testrace.Enabled {
		t.Skip("the whole suite runs in TestReferenceKernel without -race")
	}
	TestKernel(t, adapter.InProcess{Name: "reference", Serve: serve}, Options{Require: "all", Tags: concurrencyTags})
}
