package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// Observations the bridge makes of an agent (a call that is not a turn, a
// name the agent looked up beyond loopback, a tool of its own it offered,
// a bound it cannot be told) are not the agent's wire traffic: sending
// them as `event` notifications would put rows in the recorded log that
// the agent never produced, and a check reading events could take one for
// the agent's own (ER-07's "told the frontend"). They travel beside the
// wire instead: the agent kernel appends one JSON line per observation to
// a file `conform agent` names (--observations), and the run reads them
// back per session into each scenario's observations in the report.

// Observation is one line of the observation file.
type Observation struct {
	SessionID string `json:"session_id"`
	// Subject is a requirement ID the observation bears on (TA-01 for a
	// call that is not a turn) or "bridge" for what the bridge saw of the
	// agent outside any requirement (a lookup beyond loopback).
	Subject string `json:"subject"`
	What    string `json:"what"`
}

// SubjectBridge is the subject of an observation no requirement covers.
const SubjectBridge = "bridge"

// ObservationWriter appends observations to a file, one JSON line each;
// safe for concurrent use.
type ObservationWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewObservationWriter writes to w (the agent kernel opens its file with
// O_APPEND, so that several agent kernels of one run can share it).
func NewObservationWriter(w io.Writer) *ObservationWriter { return &ObservationWriter{w: w} }

// Write appends one observation; nil receiver: dropped.
func (o *ObservationWriter) Write(ob Observation) {
	if o == nil {
		return
	}
	b, err := json.Marshal(ob)
	if err != nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = o.w.Write(append(b, '\n'))
}

// ObservationReader reads an observation file as it grows and hands out
// each session's observations once.
type ObservationReader struct {
	mu     sync.Mutex
	path   string
	off    int64
	rest   []byte
	bySess map[string][]Observation
}

// NewObservationReader reads path (which may not exist yet).
func NewObservationReader(path string) *ObservationReader {
	return &ObservationReader{path: path, bySess: map[string][]Observation{}}
}

// Take returns the observations of sessionID recorded so far and forgets
// them. The agent kernel writes them before it answers session/run, so by
// the time a scenario is reported they are in the file.
func (r *ObservationReader) Take(sessionID string) []Observation {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.readNew()
	out := r.bySess[sessionID]
	delete(r.bySess, sessionID)
	return out
}

func (r *ObservationReader) readNew() {
	f, err := os.Open(r.path)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Seek(r.off, io.SeekStart); err != nil {
		return
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return
	}
	r.off += int64(len(b))
	b = append(r.rest, b...)
	sc := bufio.NewScanner(newlineTerminated(&b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var ob Observation
		if json.Unmarshal(sc.Bytes(), &ob) == nil && ob.SessionID != "" {
			r.bySess[ob.SessionID] = append(r.bySess[ob.SessionID], ob)
		}
	}
	r.rest = b
}

// newlineTerminated cuts *b after its last newline, leaving a partial last
// line (written concurrently) in *b for the next read.
func newlineTerminated(b *[]byte) io.Reader {
	i := len(*b) - 1
	for i >= 0 && (*b)[i] != '\n' {
		i--
	}
	whole := (*b)[:i+1]
	*b = append([]byte(nil), (*b)[i+1:]...)
	return bytes.NewReader(whole)
}

// countDistinct folds repeated observations of one session into one line
// each, with how often it was seen, in first-seen order.
func countDistinct(obs []string) []string {
	n := map[string]int{}
	var order []string
	for _, o := range obs {
		if n[o] == 0 {
			order = append(order, o)
		}
		n[o]++
	}
	out := make([]string, len(order))
	for i, o := range order {
		out[i] = o
		if n[o] > 1 {
			out[i] = fmt.Sprintf("%s (%d times)", o, n[o])
		}
	}
	return out
}
