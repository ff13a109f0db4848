package kit

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

// Secrets watches everything the plugin sends back for the values of its
// sensitive configuration attributes (PL-24, MP's secret row). A protobuf message is
// scanned in its binary encoding, where every string and bytes field
// appears as it is. Hits name the attribute, never the value.
type Secrets struct {
	mu     sync.Mutex
	values []secret
	hits   []string
	seen   int // how many things were scanned
}

func (s *Secrets) Add(attr, value string) {
	if len(value) < 4 {
		return // too short to tell an echo from a coincidence
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values = append(s.values, secret{attr: attr, value: []byte(value)})
}

func (s *Secrets) Any() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.values) > 0
}

// See scans b, which the plugin sent in where.
func (s *Secrets) See(where string, b []byte) {
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

func (s *Secrets) SeeMsg(where string, m proto.Message) {
	if m == nil {
		return
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return
	}
	s.See(where, b)
}

// SeeErr scans a gRPC error: its message and its details.
func (s *Secrets) SeeErr(where string, err error) {
	if err == nil {
		return
	}
	st, _ := status.FromError(err)
	s.See(where+" (gRPC status message)", []byte(st.Message()))
	s.SeeMsg(where+" (gRPC status details)", st.Proto())
}

func (s *Secrets) Found() ([]string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hits), s.seen
}

// Redact replaces every secret value in text, so no report keeps one.
func (s *Secrets) Redact(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.values {
		text = strings.ReplaceAll(text, string(v.value), "[secret "+v.attr+"]")
	}
	return text
}

// StreamWatch scans a byte stream written in pieces (the plugin's stderr),
// keeping enough of the previous piece that a secret split across two
// writes is still found. Where names the stream in a hit.
type StreamWatch struct {
	S     *Secrets
	Where string
	mu    sync.Mutex
	carry []byte
}

func (w *StreamWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.carry, p...)
	w.S.See(w.Where, buf)
	keep := 256
	if len(buf) < keep {
		keep = len(buf)
	}
	w.carry = append([]byte(nil), buf[len(buf)-keep:]...)
	return len(p), nil
}
