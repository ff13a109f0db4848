package provkit

import (
	"fmt"

	"github.com/agentconform/conform/pluginconform/callback"
	"github.com/agentconform/conform/pluginconform/kit"
)

// JudgeSecrets gives the no-secret-echoed requirement id its verdict from
// the watch that saw everything the plugin sent: answers, errors, its
// stderr, its Log entries and the events it emitted.
func JudgeSecrets(s *kit.Scenario, sec *kit.Secrets, cb *callback.Server, id string) {
	for _, e := range cb.Emitted() {
		sec.See("an event the plugin emitted ("+e.Kind.String()+")", e.Payload)
	}
	for _, l := range cb.Logs() {
		sec.See("a log entry the plugin sent through the Log callback", []byte(l))
	}
	if !sec.Any() {
		s.NotReached("no sensitive value appears in anything the plugin sent", "the configuration schema declares no sensitive attribute, so the plugin was given no secret to keep", id)
		return
	}
	hits, seen := sec.Found()
	if len(hits) == 0 {
		s.Pass(fmt.Sprintf("no sensitive value appears in anything the plugin sent (%d answers, errors, log entries and stderr writes scanned)", seen), id)
		return
	}
	for _, h := range hits {
		s.Fail("no sensitive value appears in anything the plugin sent", h, id)
	}
}
