package pluginconform

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// secret is one value the plugin was given through a sensitive
// configuration attribute.
type secret struct {
	attr  string
	value []byte
}

// secrets watches everything the plugin sends back for the values of its
// sensitive configuration attributes (PL-24). A protobuf message is
// scanned in its binary encoding, where every string and bytes field
// appears as it is. Hits name the attribute, never the value.
type secrets struct {
	mu     sync.Mutex
	values []secret
	hits   []string
	seen   int // how many things were scanned
}

func (s *secrets) add(attr, value string) {
	if len(value) < 4 {
		return // too short to tell an echo from a coincidence
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values = append(s.values, secret{attr: attr, value: []byte(value)})
}

func (s *secrets) any() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.values) > 0
}

// see scans b, which the plugin sent in where.
func (s *secrets) see(where string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen++
	for _, v := range s.values {
		if bytes.Contains(b, v.value) {
			hit := fmt.Sprintf("the value of sensitive attribute %q appears in %s", v.attr, where)
			if !slices.Contains(s.hits, hit) {
				s.hits = append(s.hits, hit)
			}
		}
	}
}

func (s *secrets) seeMsg(where string, m proto.Message) {
	if m == nil {
		return
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return
	}
	s.see(where, b)
}

// seeErr scans a gRPC error: its message and its details.
func (s *secrets) seeErr(where string, err error) {
	if err == nil {
		return
	}
	st, _ := status.FromError(err)
	s.see(where+" (gRPC status message)", []byte(st.Message()))
	s.seeMsg(where+" (gRPC status details)", st.Proto())
}

func (s *secrets) found() ([]string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hits), s.seen
}

// redact replaces every secret value in text, so no report keeps one.
func (s *secrets) redact(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.values {
		text = strings.ReplaceAll(text, string(v.value), "[secret "+v.attr+"]")
	}
	return text
}

// streamWatch scans a byte stream written in pieces (the plugin's stderr),
// keeping enough of the previous piece that a secret split across two
// writes is still found.
type streamWatch struct {
	s     *secrets
	where string
	mu    sync.Mutex
	carry []byte
}

func (w *streamWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.carry, p...)
	w.s.see(w.where, buf)
	keep := 256
	if len(buf) < keep {
		keep = len(buf)
	}
	w.carry = append([]byte(nil), buf[len(buf)-keep:]...)
	return len(p), nil
}
