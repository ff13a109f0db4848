package baseline

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/report"
)

// FromOptions tune FromReport.
type FromOptions struct {
	// Scenarios pins each entry to the scenarios it fails in; without it
	// an entry covers the requirement wherever it fails.
	Scenarios bool
	// Source names the report in each entry's reason.
	Source string
	// Now dates the reasons (default time.Now).
	Now func() time.Time
}

// FromReport lists every requirement the report has failing or in error.
// A shard's report is refused: the other shards' failures would be
// missing; merge the shards first.
func FromReport(r *report.Report, opt FromOptions) (*File, error) {
	if r.Shard != nil {
		return nil, fmt.Errorf("the report is shard %d/%d of a run: merge every shard (conform merge) and write the baseline from the merged report", r.Shard.K, r.Shard.N)
	}
	if len(r.Requirements) == 0 {
		return nil, errors.New("the report has no requirements: is it a conform report?")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	scenarios := map[string]report.ScenarioResult{}
	for _, s := range r.Scenarios {
		scenarios[s.Ref()] = s
	}
	f := &File{Version: 1, Kernel: strings.TrimSpace(r.Kernel.Name + " " + r.Kernel.Version), ExpectedFailures: []Entry{}}
	date := opt.Now().UTC().Format("2006-01-02")
	for _, q := range r.Requirements {
		if q.Status != report.Fail && q.Status != report.Error {
			continue
		}
		why := firstLine(q.Reason)
		if len(why) > 200 {
			why = strings.ToValidUTF8(why[:200], "") + "…"
		}
		e := Entry{ID: q.ID, Reason: fmt.Sprintf("%s on %s (%s): %s", q.Status, date, orReport(opt.Source), why)}
		if opt.Scenarios {
			e.Scenarios = failingIn(q, scenarios)
		}
		f.ExpectedFailures = append(f.ExpectedFailures, e)
	}
	return f, nil
}

func orReport(s string) string {
	if s == "" {
		return "the report"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
