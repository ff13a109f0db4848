package doomloop

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// Confident is the confidence a loop_check answer must reach for the
// kernel to act on a "looping" verdict (TA-13).
const Confident = 0.8

// Call is one entry of the model check's window: a read or resource call as
// the model issued it.
type Call struct {
	Tool  string
	Input json.RawMessage
}

// ModelCheck is the swappable second tier of the detector (TA-13): after a
// longer window of calls the kernel asks the model, in a request of purpose
// loop_check, whether the agent is looping, and acts on a confident yes.
// It catches repetition that the hash tier misses because the calls differ
// in bytes but not in meaning.
type ModelCheck interface {
	// Due reports whether the check runs now; calls is the number of
	// relevant calls since the last check, window the configured
	// doom_loop.model_check_window (> 0).
	Due(calls, window int) bool
	// Question is the request's messages, built from the window's calls.
	Question(recent []Call) []wire.Message
	// Looping reads the model's answer: true only for a confident yes.
	Looping(answer wire.Message) bool
}

// StandardCheck is the reference second tier. It asks once every window
// calls, and reads the answer protocol PROTOCOL.md fixes for the fake model:
// a JSON object {"looping": bool, "confidence": number} in the reply's text.
type StandardCheck struct{}

// Due implements ModelCheck.
func (StandardCheck) Due(calls, window int) bool { return window > 0 && calls >= window }

// Question implements ModelCheck.
func (StandardCheck) Question(recent []Call) []wire.Message {
	var b strings.Builder
	b.WriteString("[kernel loop check] An agent made these tool calls, oldest first:\n")
	for i, c := range recent {
		fmt.Fprintf(&b, "%d. %s %s\n", i+1, c.Tool, string(c.Input))
	}
	b.WriteString("Is the agent stuck repeating calls that are the same in meaning, making no progress? " +
		`Answer with only a JSON object {"looping": true or false, "confidence": a number from 0 to 1}.`)
	return []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: b.String()}}}}
}

// Looping implements ModelCheck. Anything that is not a well-formed,
// confident yes counts as no: the check may only end a session on a clear
// verdict.
func (StandardCheck) Looping(answer wire.Message) bool {
	var text strings.Builder
	for _, c := range answer.Content {
		if c.Type == wire.BlockText {
			text.WriteString(c.Text)
		}
	}
	s := text.String()
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return false
	}
	var v struct {
		Looping    bool     `json:"looping"`
		Confidence *float64 `json:"confidence"`
	}
	if json.Unmarshal([]byte(s[i:j+1]), &v) != nil || v.Confidence == nil {
		return false
	}
	return v.Looping && *v.Confidence >= Confident
}

// ModelCheckWindow is the configured window; 0 leaves the tier off.
func ModelCheckWindow(c *wire.DoomLoop) int {
	if c == nil || c.ModelCheckWindow < 0 {
		return 0
	}
	return c.ModelCheckWindow
}
