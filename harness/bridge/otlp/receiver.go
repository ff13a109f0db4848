package otlp

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/agentconform/conform/spec/wire"
)

// maxBody bounds one export (compressed or not): an agent's batch is far
// smaller; a flood is answered 413.
const maxBody = 32 << 20

// Counts is what the receiver has seen: observations for the report.
type Counts struct {
	Requests    int `json:"requests"`
	BadRequests int `json:"bad_requests"`
	Spans       int `json:"spans"`
	// Unmapped counts spans with no conform role (not forwarded), by name.
	Unmapped   map[string]int `json:"unmapped,omitempty"`
	LogRecords int            `json:"log_records"`
	DataPoints int            `json:"metric_data_points"`
}

// Receiver is an OTLP/HTTP receiver for one session.
type Receiver struct {
	m      Mapping
	onSpan func(wire.Span)
	mu     sync.Mutex
	c      Counts
}

// New makes a receiver that hands every mapped span to onSpan (called from
// the HTTP handler's goroutine, one export at a time per request).
func New(onSpan func(wire.Span), m Mapping) (*Receiver, error) {
	if onSpan == nil {
		return nil, fmt.Errorf("otlp: no span func")
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return &Receiver{m: m, onSpan: onSpan, c: Counts{Unmapped: map[string]int{}}}, nil
}

// Counts returns a copy of the counts so far.
func (r *Receiver) Counts() Counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.c
	c.Unmapped = make(map[string]int, len(r.c.Unmapped))
	for k, v := range r.c.Unmapped {
		c.Unmapped[k] = v
	}
	return c
}

// Handler serves /v1/traces, /v1/logs and /v1/metrics.
func (r *Receiver) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/traces", r.traces)
	mux.HandleFunc("/v1/logs", r.logs)
	mux.HandleFunc("/v1/metrics", r.metrics)
	return mux
}

func (r *Receiver) count(f func(c *Counts)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.c.Requests++
	f(&r.c)
}

// read returns the raw (maybe still gzip) body, or answers the error.
func (r *Receiver) read(w http.ResponseWriter, req *http.Request) ([]byte, bool) {
	fail := func(code int, format string, args ...any) ([]byte, bool) {
		r.count(func(c *Counts) { c.BadRequests++ })
		http.Error(w, "otlp receiver: "+fmt.Sprintf(format, args...), code)
		return nil, false
	}
	if req.Method != http.MethodPost {
		return fail(http.StatusMethodNotAllowed, "POST an OTLP export to %s, not %s", req.URL.Path, req.Method)
	}
	ct := strings.ToLower(req.Header.Get("Content-Type"))
	if !isJSON(ct) && !strings.HasPrefix(ct, "application/x-protobuf") && !strings.HasPrefix(ct, "application/protobuf") {
		return fail(http.StatusUnsupportedMediaType, "Content-Type %q is neither application/x-protobuf nor application/json", ct)
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil {
		return fail(http.StatusBadRequest, "reading the body: %v", err)
	}
	if len(body) > maxBody {
		return fail(http.StatusRequestEntityTooLarge, "the body is larger than %d bytes", maxBody)
	}
	return body, true
}

func (r *Receiver) bad(w http.ResponseWriter, path string, err error) {
	r.count(func(c *Counts) { c.BadRequests++ })
	http.Error(w, fmt.Sprintf("otlp receiver: %s: %v", path, err), http.StatusBadRequest)
}

// respond answers success in the request's encoding (OTLP/HTTP: an empty
// Export*ServiceResponse).
func respond(w http.ResponseWriter, contentType string, asJSON func() ([]byte, error), asProto func() ([]byte, error)) {
	enc, ct := asProto, "application/x-protobuf"
	if isJSON(contentType) {
		enc, ct = asJSON, "application/json"
	}
	b, _ := enc()
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(b)
}

func (r *Receiver) traces(w http.ResponseWriter, req *http.Request) {
	body, ok := r.read(w, req)
	if !ok {
		return
	}
	ct := req.Header.Get("Content-Type")
	td, err := Decode(body, ct, req.Header.Get("Content-Encoding"))
	if err != nil {
		r.bad(w, req.URL.Path, err)
		return
	}
	spans, unmapped := r.m.Spans(td)
	r.count(func(c *Counts) {
		c.Spans += len(spans)
		for _, n := range unmapped {
			c.Unmapped[n]++
		}
	})
	for _, sp := range spans {
		r.onSpan(sp)
	}
	resp := ptraceotlp.NewExportResponse()
	respond(w, ct, resp.MarshalJSON, resp.MarshalProto)
}

func (r *Receiver) logs(w http.ResponseWriter, req *http.Request) {
	lr := plogotlp.NewExportRequest()
	r.export(w, req, "logs", lr, plogotlp.NewExportResponse(), func(c *Counts) { c.LogRecords += lr.Logs().LogRecordCount() })
}

func (r *Receiver) metrics(w http.ResponseWriter, req *http.Request) {
	mr := pmetricotlp.NewExportRequest()
	r.export(w, req, "metrics", mr, pmetricotlp.NewExportResponse(), func(c *Counts) { c.DataPoints += mr.Metrics().DataPointCount() })
}

// exportRequest and exportResponse are the OTLP messages of one signal, in
// either encoding.
type exportRequest interface {
	UnmarshalJSON([]byte) error
	UnmarshalProto([]byte) error
}

type exportResponse interface {
	MarshalJSON() ([]byte, error)
	MarshalProto() ([]byte, error)
}

// export reads one export of a signal conform only counts (logs, metrics)
// into into, adds what it holds with add, and answers with resp.
func (r *Receiver) export(w http.ResponseWriter, req *http.Request, signal string, into exportRequest, resp exportResponse, add func(*Counts)) {
	body, ok := r.read(w, req)
	if !ok {
		return
	}
	ct := req.Header.Get("Content-Type")
	body, err := unzip(body, req.Header.Get("Content-Encoding"))
	if err == nil {
		if isJSON(ct) {
			err = into.UnmarshalJSON(body)
		} else {
			err = into.UnmarshalProto(body)
		}
		if err != nil {
			err = fmt.Errorf("not an OTLP %s export (%s): %v", signal, kind(ct), err)
		}
	}
	if err != nil {
		r.bad(w, req.URL.Path, err)
		return
	}
	r.count(add)
	respond(w, ct, resp.MarshalJSON, resp.MarshalProto)
}
