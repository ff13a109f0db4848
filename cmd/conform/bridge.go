package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/bridge/hookrelay"
	"github.com/agentconform/conform/harness/bridge/otlp"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/steps"
	"github.com/agentconform/conform/internal/safetext"
)

// newHookRelayCmd is the command a coding agent's hook system runs (the
// bridge's hook relay, harness/bridge/hookrelay). Its flags, exit codes and
// output are the relay's, so cobra parses nothing.
func newHookRelayCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "hook-relay --url URL --agent AGENT --event EVENT [--timeout D]",
		Short:              "Forward a coding agent's hook event to conform's agent kernel (run by the agent)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := hookrelay.Main(args, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

type traceFlags struct {
	session string
	roles   []string
	json    bool
}

func newTraceCmd() *cobra.Command {
	trace := &cobra.Command{Use: "trace", Short: "Judge recorded traces"}
	var f traceFlags
	check := &cobra.Command{
		Use:   "check FILE",
		Short: "Judge a recorded OTLP JSON trace file against the rows a trace can show",
		Long: `Judge a recorded OTLP JSON trace (one ExportTraceServiceRequest, or one
per line as the collector's file exporter writes them) with the span checks
of conform's suite that need no recorded run: turn spans, each holding its
model call; model_call, tool_execution and policy_chain spans inside their
turn span (TA-17); hook_subscriber spans inside their hook_dispatch span
(HD-13). A pass is partial: that each span covers its request needs a
recorded run (conform run). TA-32 is not verifiable from a trace.

A span's role is its conform.role attribute, else the first --role rule its
name matches (a glob: --role 'codex.turn*=turn'); spans with neither are
counted and not judged. Spans group by their conform.session_id attribute,
else --session.

Exit status: 0 when no check fails, 1 when one does, 2 when the file cannot
be read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runTraceCheck(cmd.OutOrStdout(), f, args[0]) },
	}
	fl := check.Flags()
	fl.StringVar(&f.session, "session", "trace", "session id for spans without a conform.session_id attribute")
	fl.StringArrayVar(&f.roles, "role", nil, "NAME=ROLE: give spans whose name matches the glob NAME a conform role; repeatable")
	fl.BoolVar(&f.json, "json", false, "print the verdicts as JSON")
	trace.AddCommand(check)
	return trace
}

// traceVerdict is one requirement's verdict from a trace file.
type traceVerdict struct {
	ID      string        `json:"id"`
	Status  report.Status `json:"status"`
	Partial string        `json:"partial,omitempty"`
	Reason  string        `json:"reason,omitempty"`
}

func runTraceCheck(out io.Writer, f traceFlags, file string) error {
	m := otlp.Mapping{SessionID: f.session}
	for _, r := range f.roles {
		name, role, ok := strings.Cut(r, "=")
		if !ok {
			return usage("--role %q: want NAME=ROLE", r)
		}
		m.Roles = append(m.Roles, otlp.RoleRule{Name: name, Role: role})
	}
	if err := m.Check(); err != nil {
		return usage("%v", err)
	}
	fh, err := os.Open(file)
	if err != nil {
		return usage("%s: %v", file, unwrapPath(err))
	}
	defer fh.Close()
	td, err := otlp.ReadJSONFile(fh)
	if err != nil {
		return usage("%s: %v", file, err)
	}
	spans, unmapped := m.Spans(td)
	checks := steps.CheckTrace(spans)
	verdicts := traceVerdicts(checks)
	skipped := map[string]int{}
	for _, n := range unmapped {
		skipped[n]++
	}
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		err = enc.Encode(map[string]any{"file": file, "spans": len(spans), "unmapped": skipped, "requirements": verdicts, "checks": checks})
	} else {
		err = writeTraceText(out, file, len(spans), skipped, verdicts, checks)
	}
	if err != nil {
		return err
	}
	for _, v := range verdicts {
		if v.Status == report.Fail {
			return &exitError{code: exitFailed}
		}
	}
	return nil
}

// traceVerdicts folds the checks into one verdict per requirement: a fail
// fails it; else a pass passes it, partially; a check never reached is no
// verdict, so a requirement with only those is not tested.
func traceVerdicts(checks []steps.TraceCheck) []traceVerdict {
	by := map[string]*traceVerdict{}
	var order []string
	for _, c := range checks {
		v := by[c.Requirement]
		if v == nil {
			v = &traceVerdict{ID: c.Requirement, Status: report.NotTested, Reason: "the trace has no span these checks look at"}
			by[c.Requirement] = v
			order = append(order, c.Requirement)
		}
		switch {
		case c.Status == steps.CheckFail && v.Status != report.Fail:
			v.Status, v.Partial, v.Reason = report.Fail, "", fmt.Sprintf("session %s: %s: %s", c.Session, c.Check, c.Message)
		case c.Status == steps.CheckPass && v.Status == report.NotTested:
			v.Status, v.Partial, v.Reason = report.Pass, steps.TracePartial, ""
		}
	}
	out := make([]traceVerdict, 0, len(order)+len(steps.TraceOnlyFrom))
	for _, id := range order {
		out = append(out, *by[id])
	}
	ids := make([]string, 0, len(steps.TraceOnlyFrom))
	for id := range steps.TraceOnlyFrom {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		out = append(out, traceVerdict{ID: id, Status: report.Unverifiable, Reason: steps.TraceOnlyFrom[id]})
	}
	return out
}

func writeTraceText(out io.Writer, file string, n int, skipped map[string]int, verdicts []traceVerdict, checks []steps.TraceCheck) error {
	var b strings.Builder
	fmt.Fprintf(&b, "conform trace check %s: %d span(s) judged\n", safetext.Line(file), n)
	if len(skipped) > 0 {
		names := make([]string, 0, len(skipped))
		for k := range skipped {
			names = append(names, k)
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "observation: spans with no conform role, not judged:")
		for _, k := range names {
			fmt.Fprintf(&b, " %s×%d", safetext.Line(k), skipped[k])
		}
		b.WriteString("\n")
	}
	for _, v := range verdicts {
		word := string(v.Status)
		switch v.Status {
		case report.Unverifiable:
			word = "not verifiable from outside"
		case report.NotTested:
			word = "not tested"
		}
		if v.Partial != "" {
			word += " (partial: " + v.Partial + ")"
		}
		fmt.Fprintf(&b, "%-6s %s", v.ID, word)
		if v.Reason != "" {
			fmt.Fprintf(&b, ": %s", safetext.Line(v.Reason))
		}
		b.WriteString("\n")
		for _, c := range checks {
			if c.Requirement != v.ID {
				continue
			}
			status := string(c.Status)
			if c.Status == steps.CheckNotReached {
				status = "not reached"
			}
			fmt.Fprintf(&b, "  %-11s [%s] %s", status, safetext.Line(c.Session), c.Check)
			if c.Message != "" && c.Status != steps.CheckFail {
				fmt.Fprintf(&b, " (%s)", safetext.Line(c.Message))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}
