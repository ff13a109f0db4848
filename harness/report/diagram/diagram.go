package diagram

import (
	"fmt"
	"slices"
	"strings"
)

// Message is one recorded message, as report.Message holds it. Kind is
// "request" or "notification" for what the kernel sent, or "harness" for a
// request the harness sent the kernel (session/spawn, frontend/decide).
type Message struct {
	Seq        int
	AtMS       float64
	DoneMS     *float64
	Kind       string
	Method     string
	Session    string
	Label      string
	Error      string
	Unanswered bool
}

// Message kinds.
const (
	KindRequest      = "request"
	KindNotification = "notification"
	KindHarness      = "harness"
)

// Lifeline is one participant of the diagram.
type Lifeline struct {
	// ID is a short fixed identifier (a Mermaid participant name).
	ID string
	// Name is what the diagram shows.
	Name string
}

// The lifelines, in the order they are drawn; only those a diagram uses
// are kept, the kernel always.
var lifelines = []Lifeline{
	{"K", "kernel"},
	{"C", "context"},
	{"M", "model"},
	{"T", "tool providers"},
	{"H", "hook subscribers"},
	{"F", "frontend"},
	{"R", "recorder"},
	{"X", "harness"},
}

const (
	kernelID   = "K"
	recorderID = "R"
	harnessID  = "X"
)

// lifelineFor names the fake that serves a message: the model for
// model/stream, the context provider for context/assemble, the tool
// providers for tool/*, the hook subscribers for hook/dispatch, the frontend
// for frontend/*, the recorder for every notification, and the harness for
// the rest (session/spawn, memory/write, a method nobody serves).
func lifelineFor(kind, method string) string {
	if kind == KindNotification {
		return recorderID
	}
	switch {
	case method == "model/stream":
		return "M"
	case method == "context/assemble":
		return "C"
	case strings.HasPrefix(method, "tool/"):
		return "T"
	case method == "hook/dispatch":
		return "H"
	case strings.HasPrefix(method, "frontend/"):
		return "F"
	}
	return harnessID
}

// EventKind says what an arrow is.
type EventKind int

// Event kinds.
const (
	// Call is a request from the kernel to a fake.
	Call EventKind = iota
	// Answer is the fake's answer to a Call.
	Answer
	// Notify is a notification from the kernel to the recorder.
	Notify
	// Push is a request the harness sent the kernel.
	Push
)

// Event is one arrow of the diagram.
type Event struct {
	Kind EventKind
	// Seq is the message's sequence number; AtMS when the arrow happened
	// (the answer time for an Answer).
	Seq  int
	AtMS float64
	// From and To index Diagram.Lifelines.
	From, To int
	// Text is the arrow's label; Detail the full text for a tooltip. Both
	// are raw: each rendering escapes them.
	Text, Detail string
	// Error marks an error answer (or a harness request that failed);
	// Unanswered a request that was never answered.
	Error, Unanswered bool
}

// Diagram is the events of one exchange in time order.
type Diagram struct {
	Lifelines []Lifeline
	Events    []Event
	// Messages is how many messages the events come from; Omitted how many
	// earlier ones the exchange left out.
	Messages, Omitted int
}

// New builds the diagram of msgs (in recorded order), of which omitted
// earlier messages were left out.
func New(msgs []Message, omitted int) *Diagram {
	used := map[string]bool{kernelID: true}
	for _, m := range msgs {
		used[lifelineFor(m.Kind, m.Method)] = true
	}
	d := &Diagram{Messages: len(msgs), Omitted: max(omitted, 0)}
	index := map[string]int{}
	for _, l := range lifelines {
		if used[l.ID] {
			index[l.ID] = len(d.Lifelines)
			d.Lifelines = append(d.Lifelines, l)
		}
	}
	k := index[kernelID]
	for _, m := range msgs {
		fake := index[lifelineFor(m.Kind, m.Method)]
		detail := detailOf(m)
		switch m.Kind {
		case KindNotification:
			d.Events = append(d.Events, Event{Kind: Notify, Seq: m.Seq, AtMS: m.AtMS, From: k, To: fake,
				Text: m.Label, Detail: detail})
		case KindHarness:
			if m.DoneMS != nil {
				// The kernel's answer was recorded: draw it as an arrow of
				// its own, as for a fake's.
				d.Events = append(d.Events, Event{Kind: Push, Seq: m.Seq, AtMS: m.AtMS, From: fake, To: k, Text: m.Label, Detail: detail},
					answer(m, k, fake))
				continue
			}
			text := m.Label
			if m.Error != "" {
				text += " → " + m.Error
			}
			d.Events = append(d.Events, Event{Kind: Push, Seq: m.Seq, AtMS: m.AtMS, From: fake, To: k,
				Text: text, Detail: detail, Error: m.Error != ""})
		default:
			unanswered := m.Unanswered || m.DoneMS == nil
			d.Events = append(d.Events, Event{Kind: Call, Seq: m.Seq, AtMS: m.AtMS, From: k, To: fake,
				Text: m.Label, Detail: detail, Unanswered: unanswered})
			if !unanswered {
				d.Events = append(d.Events, answer(m, fake, k))
			}
		}
	}
	// A stable sort keeps an answer after its own request at equal times,
	// and messages in recorded order otherwise.
	slices.SortStableFunc(d.Events, func(a, b Event) int {
		switch {
		case a.AtMS < b.AtMS:
			return -1
		case a.AtMS > b.AtMS:
			return 1
		}
		return 0
	})
	return d
}

// Tail returns msgs cut to the last n, and how many it cut.
func Tail(msgs []Message, n int) ([]Message, int) {
	if n <= 0 || len(msgs) <= n {
		return msgs, 0
	}
	return msgs[len(msgs)-n:], len(msgs) - n
}

// answer is the arrow of m's answer, from the lifeline that answered.
func answer(m Message, from, to int) Event {
	text := "ok: " + m.Label
	if m.Error != "" {
		text = "error: " + m.Error
	}
	return Event{Kind: Answer, Seq: m.Seq, AtMS: max(*m.DoneMS, m.AtMS), From: from, To: to,
		Text: text, Detail: fmt.Sprintf("answer to #%d (%s) at %.1f ms: %s", m.Seq, m.Label, *m.DoneMS, answerText(m)),
		Error: m.Error != ""}
}

func detailOf(m Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s at %.1f ms", m.Seq, m.Kind, m.Method, m.AtMS)
	if m.Session != "" {
		fmt.Fprintf(&b, " in session %s", m.Session)
	}
	b.WriteString(": " + m.Label)
	switch {
	case m.Kind == KindRequest && (m.Unanswered || m.DoneMS == nil):
		b.WriteString(" (never answered)")
	case m.Kind == KindHarness && m.Error != "":
		b.WriteString(" (failed: " + m.Error + ")")
	}
	return b.String()
}

func answerText(m Message) string {
	if m.Error != "" {
		return "error: " + m.Error
	}
	return "ok"
}

// Short is s cut to n runes, with "…" in place of what was cut.
func Short(s string, n int) string {
	if n < 1 {
		n = 1
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
