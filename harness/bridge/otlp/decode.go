package otlp

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"path"
	"strings"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/agentconform/conform/spec/wire"
)

// Attributes the mapping reads.
const (
	AttrSessionID = "conform.session_id"
	AttrTurnID    = "conform.turn_id"
)

// RoleRule gives spans whose name matches Name (a path.Match pattern, so
// "codex.turn*" works) a conform role.
type RoleRule struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

// Mapping says how OTLP spans become wire.Spans.
type Mapping struct {
	// SessionID stamps spans with no conform.session_id attribute.
	SessionID string
	// Roles apply to spans with no conform.role attribute, first match wins.
	Roles []RoleRule
}

var roles = map[string]bool{wire.RoleSession: true, wire.RoleTurn: true, wire.RoleModelCall: true, wire.RoleToolExec: true,
	wire.RolePolicyChain: true, wire.RoleHookDispatch: true, wire.RoleHookSubscribe: true}

// Check refuses rules that could never give a valid role.
func (m Mapping) Check() error {
	for _, r := range m.Roles {
		if !roles[r.Role] {
			return fmt.Errorf("otlp: role rule %q -> %q: not a span role", r.Name, r.Role)
		}
		if _, err := path.Match(r.Name, ""); err != nil {
			return fmt.Errorf("otlp: role rule %q: bad pattern: %v", r.Name, err)
		}
	}
	return nil
}

// Spans maps every span of td. Spans with no known role come back in
// unmapped (by name), not in spans.
func (m Mapping) Spans(td ptrace.Traces) (spans []wire.Span, unmapped []string) {
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		sss := rss.At(i).ScopeSpans()
		for j := range sss.Len() {
			ss := sss.At(j).Spans()
			for k := range ss.Len() {
				sp := ss.At(k)
				attrs := sp.Attributes().AsRaw()
				role := m.role(sp.Name(), attrs)
				if role == "" {
					unmapped = append(unmapped, sp.Name())
					continue
				}
				w := wire.Span{
					TraceID:       sp.TraceID().String(),
					SpanID:        sp.SpanID().String(),
					Name:          sp.Name(),
					Role:          role,
					SessionID:     m.SessionID,
					StartUnixNano: int64(sp.StartTimestamp()),
					EndUnixNano:   int64(sp.EndTimestamp()),
					Attributes:    attrs,
				}
				if !sp.ParentSpanID().IsEmpty() {
					w.ParentSpanID = sp.ParentSpanID().String()
				}
				if s, ok := attrs[AttrSessionID].(string); ok && s != "" {
					w.SessionID = s
				}
				if t, ok := attrs[AttrTurnID].(string); ok {
					w.TurnID = t
				}
				if len(w.Attributes) == 0 {
					w.Attributes = nil
				}
				spans = append(spans, w)
			}
		}
	}
	return spans, unmapped
}

func (m Mapping) role(name string, attrs map[string]any) string {
	if r, ok := attrs[wire.RoleAttribute].(string); ok && roles[r] {
		return r
	}
	for _, rule := range m.Roles {
		if ok, _ := path.Match(rule.Name, name); ok {
			return rule.Role
		}
	}
	return ""
}

// Decode reads one OTLP/HTTP trace export body: protobuf unless the
// content type says JSON; gzip when the encoding says so.
func Decode(body []byte, contentType, encoding string) (ptrace.Traces, error) {
	body, err := unzip(body, encoding)
	if err != nil {
		return ptrace.Traces{}, err
	}
	req := ptraceotlp.NewExportRequest()
	if isJSON(contentType) {
		err = req.UnmarshalJSON(body)
	} else {
		err = req.UnmarshalProto(body)
	}
	if err != nil {
		return ptrace.Traces{}, fmt.Errorf("not an OTLP trace export (%s): %v", kind(contentType), err)
	}
	return req.Traces(), nil
}

func isJSON(contentType string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "application/json")
}

func kind(contentType string) string {
	if isJSON(contentType) {
		return "JSON"
	}
	return "protobuf"
}

// ReadJSONFile reads a recorded OTLP JSON trace file: one export request,
// or one per line (the collector's file exporter writes JSON lines).
func ReadJSONFile(r io.Reader) (ptrace.Traces, error) {
	all := ptrace.NewTraces()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxBody)
	var whole bytes.Buffer
	lines := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		whole.Write(line)
		whole.WriteByte('\n')
		lines++
	}
	if err := sc.Err(); err != nil {
		return all, fmt.Errorf("reading the trace file: %v", err)
	}
	if lines == 0 {
		return all, fmt.Errorf("the trace file is empty")
	}
	// A file that is one JSON document (pretty-printed or not) first.
	if td, err := Decode(whole.Bytes(), "application/json", ""); err == nil {
		return td, nil
	}
	n := 0
	for line := range bytes.SplitSeq(whole.Bytes(), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		n++
		td, err := Decode(line, "application/json", "")
		if err != nil {
			return all, fmt.Errorf("line %d: %v", n, err)
		}
		td.ResourceSpans().MoveAndAppendTo(all.ResourceSpans())
	}
	return all, nil
}

// unzip undoes a gzip Content-Encoding.
func unzip(body []byte, encoding string) ([]byte, error) {
	switch {
	case encoding == "" || strings.EqualFold(encoding, "identity"):
		return body, nil
	case !strings.EqualFold(encoding, "gzip"):
		return nil, fmt.Errorf("unsupported Content-Encoding %q (gzip or none)", encoding)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("the body says gzip but is not: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("the gzip body is corrupt: %v", err)
	}
	if len(out) > maxBody {
		return nil, fmt.Errorf("the body unpacks to more than %d bytes", maxBody)
	}
	return out, nil
}
