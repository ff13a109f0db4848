package mutants

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// An echo whose empty lists are spelled null refused (HD-09, PROTOCOL.md §3
// "Arrays and null" and §9 HookPayload: messages and tools, "null =
// absent"). The kernel leaves an empty tools list out of its pre-model-call
// payload; a transform that echoes it as "tools": null returns the payload
// unchanged, and an unchanged payload is accepted everywhere. A kernel
// that checks a transform's payload lists as arrays, null not allowed
// (or, the same to the harness, compares the echo's JSON with what it sent
// and counts null apart from absent), refuses the echo: an
// INVALID_RESPONSE hook_error for the subscriber, and the chain aborted.
//
// Go's decoder makes null and absent the same nil slice, so no part of the
// reference kernel sees the difference; the mutant reads the answers on
// the wire (Mutant.In) and turns a null messages or tools list of a
// transform's payload into a value that fails the result's schema, which
// the reference kernel reports exactly as that check would:
// INVALID_RESPONSE. Lists spelled [] or left out are read as they come.
//
// No fake echoed a null list before commit 2b92be4, so every HD-09
// scenario passed; its respelled-echo scenario kills it.
func init() {
	register(Mutant{Name: "semantic/s18-null-list-echo-refused", Targets: []string{"HD-09"},
		Breaks: "a transform's answer whose payload spells messages or tools null (null = absent) fails the kernel's check of the answer: an unchanged echo of a payload without tools is an INVALID_RESPONSE and aborts the chain",
		Apply:  func(p loop.Parts) loop.Parts { return p },
		In:     func(in io.Reader) io.Reader { return &lineReader{r: bufio.NewReader(in), edit: refuseNullLists} },
	})
}

// refuseNullLists rewrites a hook/dispatch answer with a transform payload
// whose messages or tools is null so that the list breaks the schema.
func refuseNullLists(line []byte) []byte {
	if !bytes.Contains(line, []byte("null")) || !bytes.Contains(line, []byte(`"result"`)) {
		return line
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || msg["method"] != nil || msg["result"] == nil {
		return line
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(msg["result"], &res) != nil || string(res["outcome"]) != `"`+wire.OutcomeTransform+`"` {
		return line
	}
	var payload map[string]json.RawMessage
	if json.Unmarshal(res["payload"], &payload) != nil {
		return line
	}
	refused := false
	for _, k := range []string{"messages", "tools"} {
		if v, ok := payload[k]; ok && string(bytes.TrimSpace(v)) == "null" {
			payload[k] = json.RawMessage(`{"null":"is no list"}`)
			refused = true
		}
	}
	if !refused {
		return line
	}
	var err error
	if res["payload"], err = json.Marshal(payload); err != nil {
		return line
	}
	if msg["result"], err = json.Marshal(res); err != nil {
		return line
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return append(b, '\n')
}

// lineReader hands out what r reads, each whole line through edit; the
// last bytes before the end, without a newline, go out as they are.
type lineReader struct {
	r    *bufio.Reader
	edit func([]byte) []byte
	buf  []byte
	err  error
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.buf) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		line, err := l.r.ReadBytes('\n')
		l.err = err
		if err == nil {
			line = l.edit(line)
		}
		l.buf = line
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}
