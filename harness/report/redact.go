package report

import "github.com/agentconform/conform/internal/safetext"

// Redact replaces, in place, every secret value in the strings of r a kernel
// can put there: its name, version, capabilities, readings (keys and values)
// command line and glue notes; every requirement's reason, failing and unreached checks
// and what a partial pass left unverified; every scenario's failure text,
// message log, recorded exchange, check messages and observations; and the
// warnings. secrets is usually safetext.EnvironRedactor(); nil
// means exactly that, so that forgetting to pass one never leaks.
//
// The Markdown, JUnit and text writers redact on their own; Redact is for the
// JSON report, which is written as the Report holds it. The fields are listed
// by hand so that a new kernel-supplied field is a decision, not an accident:
// add it here when adding it to the report.
func Redact(r *Report, secrets *safetext.Redactor) {
	if r == nil {
		return
	}
	if secrets == nil {
		secrets = safetext.EnvironRedactor()
	}
	red := secrets.Redact

	k := &r.Kernel
	k.Name = red(k.Name)
	k.Version = red(k.Version)
	k.Command = red(k.Command)
	k.Capabilities = redactAll(k.Capabilities, red)
	if k.Readings != nil {
		readings := make(map[string]string, len(k.Readings))
		for key, v := range k.Readings {
			readings[red(key)] = red(v)
		}
		k.Readings = readings
	}
	if k.Glue != nil {
		glue := make(map[string]string, len(k.Glue))
		for id, why := range k.Glue {
			glue[red(id)] = red(why)
		}
		k.Glue = glue
	}

	for i := range r.Requirements {
		q := &r.Requirements[i]
		q.Reason = red(q.Reason)
		q.Unverified = red(q.Unverified)
		q.Glue = red(q.Glue)
		q.Failures = redactRefs(q.Failures, red)
		q.NotReached = redactRefs(q.NotReached, red)
	}
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		s.Failure = red(s.Failure)
		s.Log = redactAll(s.Log, red)
		if s.Checks != nil {
			checks := make([]CheckResult, len(s.Checks))
			for j, c := range s.Checks {
				c.Message = red(c.Message)
				checks[j] = c
			}
			s.Checks = checks
		}
		s.Observations = redactObservations(s.Observations, red)
		s.Exchange = redactExchange(s.Exchange, red)
	}
	r.Observations = redactObservations(r.Observations, red)
	r.Warnings = redactAll(r.Warnings, red)
}

func redactRefs(refs []CheckRef, red func(string) string) []CheckRef {
	if refs == nil {
		return nil
	}
	out := make([]CheckRef, len(refs))
	for i, c := range refs {
		c.Message = red(c.Message)
		out[i] = c
	}
	return out
}

// redactExchange redacts what a kernel can put into a recorded message: the
// method it called, its session ID, the label read from its params (a tool
// name, a subscriber) and the error answer.
func redactExchange(msgs []Message, red func(string) string) []Message {
	if msgs == nil {
		return nil
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.Method, m.Session, m.Label, m.Error = red(m.Method), red(m.Session), red(m.Label), red(m.Error)
		out[i] = m
	}
	return out
}

func redactObservations(obs []Observation, red func(string) string) []Observation {
	if obs == nil {
		return nil
	}
	out := make([]Observation, len(obs))
	for i, o := range obs {
		o.What = red(o.What)
		out[i] = o
	}
	return out
}

// redactAll returns a redacted copy of ss: the report's slices may share
// their arrays with the runner's records, which are not Redact's to change.
func redactAll(ss []string, red func(string) string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = red(s)
	}
	return out
}
