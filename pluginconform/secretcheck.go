package pluginconform

import "fmt"

// checkSecrets gives PL-24 its verdict from the watch that saw everything
// the plugin sent: answers, events, errors, its stderr, its Log entries
// and the events it emitted.
func (r *run) checkSecrets() {
	s := r.rec.Scenario("plugin/secrets", "no secret echoed", "PL-24")
	defer r.rec.Add(s)
	for _, e := range r.cb.Emitted() {
		r.secrets.See("an event the plugin emitted ("+e.Kind.String()+")", e.Payload)
	}
	for _, l := range r.cb.Logs() {
		r.secrets.See("a log entry the plugin sent through the Log callback", []byte(l))
	}
	if !r.secrets.Any() {
		s.NotReached("no sensitive value appears in anything the plugin sent", "the configuration schema declares no sensitive attribute, so the plugin was given no secret to keep", "PL-24")
		return
	}
	hits, seen := r.secrets.Found()
	if len(hits) == 0 {
		s.Pass(fmt.Sprintf("no sensitive value appears in anything the plugin sent (%d answers, events, errors, log entries and stderr writes scanned)", seen), "PL-24")
		return
	}
	for _, h := range hits {
		s.Fail("no sensitive value appears in anything the plugin sent", h, "PL-24")
	}
}
