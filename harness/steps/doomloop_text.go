package steps

import (
	"encoding/json"
	"strings"
	"unicode"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Helpers of the doom loop's model-check checks: what a request shows and
// whether a recorded model answer failed.

// inputStrings are the string values in a call's input, nested ones too.
func inputStrings(raw json.RawMessage) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// containsToken finds v in s not run into a longer word ("value-1" is not
// in "value-12").
func containsToken(s, v string) bool {
	word := func(r byte) bool { return r < 0x80 && (unicode.IsLetter(rune(r)) || unicode.IsDigit(rune(r))) }
	for i := 0; ; {
		j := strings.Index(s[i:], v)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(v)
		if (start == 0 || !word(s[start-1])) && (end == len(s) || !word(s[end])) {
			return true
		}
		i = start + 1
	}
}

// replyFailed says whether a recorded model/stream answer was a failure:
// a JSON-RPC error or a stream with an error event.
func replyFailed(e calllog.Entry) bool {
	if e.Err != "" {
		return true
	}
	var r wire.ModelStreamResult
	_ = json.Unmarshal(e.Result, &r)
	for _, ev := range r.Events {
		if ev.Type == wire.EventErrorSE {
			return true
		}
	}
	return false
}
