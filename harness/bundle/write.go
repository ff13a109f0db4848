package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/internal/safetext"
)

// Writer writes one bundle per captured scenario under Dir. Capture is safe
// to call from the runner's goroutines; Finish writes the manifests once the
// run knows its kernel.
type Writer struct {
	Dir         string
	Versions    Versions
	CommandLine string
	Run         RunSettings
	// Secrets redacts what is written; nil: the environment's secrets.
	Secrets *safetext.Redactor
	// Now is the clock of created_at (default time.Now).
	Now func() time.Time

	mu      sync.Mutex
	pending []*pending
	names   map[string]bool
	errs    []error
}

type pending struct {
	dir string
	m   Manifest
}

// Capture writes the scenario's feature, exchange and stderr at once, so
// that a long run does not hold every failing exchange in memory; its
// manifest waits for Finish.
func (w *Writer) Capture(cp runner.Capture) {
	dir, err := w.folder(cp.Row)
	if err == nil {
		var m Manifest
		m, err = w.write(dir, cp)
		if err == nil {
			w.mu.Lock()
			w.pending = append(w.pending, &pending{dir: dir, m: m})
			w.mu.Unlock()
		}
	}
	if err != nil {
		w.mu.Lock()
		w.errs = append(w.errs, fmt.Errorf("repro bundle of %s: %w", cp.Row.Ref(), err))
		w.mu.Unlock()
	}
}

// Finish writes every manifest with the kernel the run checked, and
// returns the bundles' folders (sorted) and any error met on the way.
func (w *Writer) Finish(k report.Kernel) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	red := w.redact
	k.Name, k.Version, k.Command = red(k.Name), red(k.Version), red(k.Command)
	caps := make([]string, len(k.Capabilities))
	for i, c := range k.Capabilities {
		caps[i] = red(c)
	}
	k.Capabilities = caps
	if k.Readings != nil {
		rd := map[string]string{}
		for key, v := range k.Readings {
			rd[red(key)] = red(v)
		}
		k.Readings = rd
	}
	var dirs []string
	for _, p := range w.pending {
		p.m.Kernel = k
		data, err := json.MarshalIndent(p.m, "", "  ")
		if err == nil {
			err = os.WriteFile(filepath.Join(p.dir, ManifestFile), append(data, '\n'), 0o644)
		}
		if err != nil {
			w.errs = append(w.errs, fmt.Errorf("repro bundle %s: %w", p.dir, err))
			continue
		}
		dirs = append(dirs, p.dir)
	}
	w.pending = nil
	slices.Sort(dirs)
	return dirs, errors.Join(w.errs...)
}

func (w *Writer) redact(s string) string {
	if w.Secrets == nil {
		w.Secrets = safetext.EnvironRedactor()
	}
	return w.Secrets.Redact(s)
}

// folder makes the bundle's folder, named after the scenario's file:line.
func (w *Writer) folder(row report.ScenarioResult) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.names == nil {
		w.names = map[string]bool{}
	}
	base := folderName(row.Ref())
	name := base
	for i := 2; w.names[name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	w.names[name] = true
	dir := filepath.Join(w.Dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func folderName(ref string) string {
	s := strings.Trim(unsafeName.ReplaceAllString(strings.ReplaceAll(ref, ":", "-L"), "_"), "._")
	if s == "" {
		s = "scenario"
	}
	return s
}

var fuzzSeed = regexp.MustCompile(`(?m)^\s*Seed (\d+)\.`)

func (w *Writer) write(dir string, cp runner.Capture) (Manifest, error) {
	w.mu.Lock()
	red := w.redact
	now := w.Now
	w.mu.Unlock()
	if now == nil {
		now = time.Now
	}
	row := cp.Row
	m := Manifest{
		Format: Format, CreatedAt: now().UTC(), Conform: w.Versions,
		CommandLine: red(w.CommandLine), Run: w.Run, Feature: FeatureFile,
		Scenario: Scenario{
			File: row.File, Line: row.Line, Name: red(row.Name), Tags: slices.Clone(row.Tags),
			Status: row.Status, Reason: red(row.Failure),
		},
	}
	for _, c := range row.Checks {
		c.Message = red(c.Message)
		c.Requirements = slices.Clone(c.Requirements)
		m.Scenario.Checks = append(m.Scenario.Checks, c)
	}
	featureName, description := "", ""
	if cp.Feature != nil {
		featureName, description = cp.Feature.Name, cp.Feature.Description
		if s := fuzzSeed.FindStringSubmatch(description); s != nil {
			if seed, err := strconv.ParseUint(s[1], 10, 64); err == nil {
				m.FuzzSeed = &seed
			}
		}
	}
	header := []string{
		fmt.Sprintf("Repro bundle of %s (%s), written by conform %s.", row.Ref(), row.Status, w.Versions.Version),
		"Re-run it with: conform replay <this folder> --kernel \"CMD\"",
	}
	if d := strings.TrimSpace(description); d != "" {
		header = append(header, "The feature's description:")
		for _, l := range strings.Split(d, "\n") {
			header = append(header, "  "+strings.TrimSpace(l))
		}
	}
	feature := red(Feature(cp.Pickle, featureName, header))
	if err := os.WriteFile(filepath.Join(dir, FeatureFile), []byte(feature), 0o644); err != nil {
		return m, err
	}

	lines := Exchange(cp, red)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return m, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ExchangeFile), buf.Bytes(), 0o644); err != nil {
		return m, err
	}
	m.Exchange = ExchangeInfo{File: ExchangeFile, Messages: len(lines), Note: exchangeNote}

	stderr := red(cp.Stderr)
	m.Stderr = StderrInfo{File: StderrFile, Bytes: len(stderr), Lost: cp.StderrLost}
	switch {
	case !cp.HasStderr && cp.Log != nil && len(cp.Log.Entries()) == 0 && row.Status == report.Error:
		m.Stderr.Note = "the kernel did not get to run this scenario, or has no stderr (in-process); the failure text holds what the harness saw"
	case !cp.HasStderr:
		m.Stderr.Note = "the kernel has no stderr of its own (it runs inside conform), or never started"
	case cp.StderrLost > 0:
		m.Stderr.Note = fmt.Sprintf("only the last %d bytes are kept: the kernel wrote %d more while it ran this scenario", len(cp.Stderr), cp.StderrLost)
	default:
		m.Stderr.Complete = true
		m.Stderr.Note = "everything the kernel wrote to stderr while it ran this scenario (a kernel may serve several scenarios in turn; what it wrote for others is not here)"
	}
	if err := os.WriteFile(filepath.Join(dir, StderrFile), []byte(stderr), 0o644); err != nil {
		return m, err
	}
	return m, nil
}

const exchangeNote = "every message the kernel sent and every answer the harness gave, and the calls the harness made of the kernel during the session (session/spawn, frontend/decide, memory/write) with the kernel's answers, payloads included, in the order the harness saw them; seq 0 is the session/run call and the last line its answer (neither timed by the recorder); session/cancel is not recorded"

// Exchange turns a capture into exchange lines, payloads redacted.
func Exchange(cp runner.Capture, red func(string) string) []Line {
	var out []Line
	out = append(out, Line{Seq: 0, From: "harness", Kind: "request", Method: "session/run", Session: red(cp.Session.SessionID), Params: payload(mustJSON(cp.Session), red)})
	var entries []calllog.Entry
	if cp.Log != nil {
		entries = cp.Log.Entries()
	}
	last := 0
	for _, e := range entries {
		at, ms := e.Start.UTC(), millis(cp.Log.Since(e.Start))
		// The recorder logs the kernel's requests and notifications, and
		// the calls the harness itself makes (fakes.KindHarness), each with
		// its answer.
		from, answerer, kind := "kernel", "harness", e.Kind
		if e.Kind == fakes.KindHarness {
			from, answerer, kind = "harness", "kernel", calllog.Request
		}
		l := Line{Seq: e.Seq, At: &at, AtMS: &ms, From: from, Kind: kind, Method: e.Method,
			Session: red(e.SessionID), Turn: red(e.TurnID), Label: red(e.Label), Params: payload(e.Params, red)}
		last = max(last, e.Seq)
		if kind == calllog.Request && !e.Answered() {
			l.Unanswered = true
		}
		out = append(out, l)
		if kind == calllog.Request && e.Answered() {
			at, ms := e.End.UTC(), millis(cp.Log.Since(e.End))
			seq := e.Seq
			out = append(out, Line{Seq: e.EndSeq, At: &at, AtMS: &ms, From: answerer, Kind: "response", Method: e.Method,
				ReplyTo: &seq, Session: red(e.SessionID), Turn: red(e.TurnID), Label: red(e.Label),
				Result: payload(e.Result, red), Error: red(e.Err)})
			last = max(last, e.EndSeq)
		}
	}
	slices.SortStableFunc(out, func(a, b Line) int { return a.Seq - b.Seq })
	if cp.Result.SessionID != "" {
		zero := 0
		out = append(out, Line{Seq: last + 1, From: "kernel", Kind: "response", Method: "session/run", ReplyTo: &zero,
			Session: red(cp.Result.SessionID), Result: payload(mustJSON(cp.Result), red)})
	}
	return out
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return data
}

// payload decodes a raw JSON payload and redacts every string in it, keys
// included; numbers keep their exact text.
func payload(raw json.RawMessage, red func(string) string) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return red(string(raw))
	}
	return redactValue(v, red)
}

func redactValue(v any, red func(string) string) any {
	switch x := v.(type) {
	case string:
		return red(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], red)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[red(k)] = redactValue(e, red)
		}
		return out
	}
	return v
}
