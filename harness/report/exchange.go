package report

import (
	"github.com/agentconform/conform/harness/report/diagram"
	"github.com/agentconform/conform/internal/safetext"
)

// exchangeDiagram is the sequence diagram of a scenario's last n recorded
// messages (all it kept when n <= 0), every string redacted first: a
// diagram cuts labels to fit, and a cut must not leave half a secret. It
// is nil when the scenario kept no exchange.
func exchangeDiagram(s ScenarioResult, n int, secrets *safetext.Redactor) *diagram.Diagram {
	if len(s.Exchange) == 0 {
		return nil
	}
	msgs := make([]diagram.Message, len(s.Exchange))
	for i, m := range s.Exchange {
		msgs[i] = diagram.Message{
			Seq: m.Seq, AtMS: m.AtMS, DoneMS: m.DoneMS, Kind: m.Kind, Unanswered: m.Unanswered,
			Method:  secrets.Redact(m.Method),
			Session: secrets.Redact(m.Session),
			Label:   secrets.Redact(m.Label),
			Error:   secrets.Redact(m.Error),
		}
	}
	kept, cut := diagram.Tail(msgs, n)
	return diagram.New(kept, s.ExchangeOmitted+cut)
}
