package provkit

import (
	"sort"

	"github.com/agentconform/conform/pluginconform/kit"
)

// Unjudged records, in a scenario of its own, why each requirement that
// no check judged was not reached; nothing when every one was.
func Unjudged(rec *kit.Recorder, file, name string, why map[string]string) {
	ids := make([]string, 0, len(why))
	for id := range why {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var s *kit.Scenario
	for _, id := range ids {
		if rec.Judged[id] {
			continue
		}
		if s == nil {
			s = rec.Scenario(file, name)
		}
		s.NotReached("the rule applies to something the plugin declared or did", why[id], id)
	}
	if s != nil {
		rec.Add(s)
	}
}
