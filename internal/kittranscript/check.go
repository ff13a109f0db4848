package kittranscript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentconform/conform/spec/wire"
)

// entry is one message of a kit's transcript.
type entry struct {
	Method string          `json:"method"`
	Part   string          `json:"part"` // params, result or error
	Body   json.RawMessage `json:"body"`
}

// Result is what a transcript held.
type Result struct {
	// Seen counts the messages by "method part".
	Seen map[string]int
	// Problems are the messages that break the schemas, one line each.
	Problems []string
	// FirstModelStream is the first model/stream params, for a negative
	// control: the caller breaks a copy and checks the validator refuses it.
	FirstModelStream map[string]json.RawMessage
}

// Check reads a transcript and validates every message in it. An error
// means the transcript itself could not be read.
func Check(r io.Reader) (Result, error) {
	res := Result{Seen: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 8<<20)
	for n := 1; sc.Scan(); n++ {
		var e entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return res, fmt.Errorf("transcript line %d: %w", n, err)
		}
		bad := func(format string, args ...any) {
			res.Problems = append(res.Problems, fmt.Sprintf("transcript line %d: ", n)+fmt.Sprintf(format, args...))
		}
		if e.Method == "" {
			bad("an answer to a request the kit never noted: %s", sc.Bytes())
			continue
		}
		res.Seen[e.Method+" "+e.Part]++
		switch e.Part {
		case wire.PartParams, wire.PartResult:
			if err := wire.Validate(e.Method, e.Part, e.Body); err != nil {
				bad("%s %s: %v\n%s", e.Method, e.Part, err, e.Body)
			}
		case "error":
			var rpcErr struct {
				Code    *int    `json:"code"`
				Message *string `json:"message"`
			}
			if json.Unmarshal(e.Body, &rpcErr) != nil || rpcErr.Code == nil || rpcErr.Message == nil {
				bad("%s error answer is not {code, message}: %s", e.Method, e.Body)
			}
		default:
			bad("part %q", e.Part)
		}
		if e.Method == wire.MethodModelStream && res.FirstModelStream == nil {
			_ = json.Unmarshal(e.Body, &res.FirstModelStream)
		}
	}
	return res, sc.Err()
}

// CanFail is the negative control: a copy of the first model/stream params
// with a purpose the schema forbids must be refused, or the validation
// above proved nothing.
func (r Result) CanFail() error {
	if r.FirstModelStream == nil {
		return fmt.Errorf("no model/stream in the transcript")
	}
	broken := map[string]json.RawMessage{}
	for k, v := range r.FirstModelStream {
		broken[k] = v
	}
	broken["purpose"] = json.RawMessage(`"chat"`)
	b, _ := json.Marshal(broken)
	if wire.Validate(wire.MethodModelStream, wire.PartParams, b) == nil {
		return fmt.Errorf("a model/stream with purpose chat validated: the schema check cannot fail")
	}
	return nil
}
