package bridge

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The stub resolver records the name an agent looks up and answers
// NXDOMAIN, over UDP and TCP, so a lookup beyond loopback is an
// observation with its host and a quick failure for the agent.
func TestDNSStubRecordsNamesAndAnswersNXDOMAIN(t *testing.T) {
	var mu sync.Mutex
	var names []string
	d := &DNSStub{Addr: "127.0.0.1:0", OnQuery: func(name, qtype string) {
		mu.Lock()
		names = append(names, name+" "+qtype)
		mu.Unlock()
	}}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, network := range []string{"udp", "tcp"} {
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, d.Addr)
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := r.LookupHost(ctx, "api."+network+".example.com")
		cancel()
		var de *net.DNSError
		if !errors.As(err, &de) || !de.IsNotFound {
			t.Errorf("%s: lookup = %v, want not found (NXDOMAIN)", network, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"api.udp.example.com A", "api.tcp.example.com A"} {
		if !slices.Contains(names, want) {
			t.Errorf("queries %v lack %q", names, want)
		}
	}
}

// A lookup made while a session runs is that session's observation, with
// the host, subject bridge.
func TestLookupsBecomeObservationsOfTheRunningSession(t *testing.T) {
	var buf bytes.Buffer
	k := &Kernel{Profile: &Profile{Name: "x"}, Observations: NewObservationWriter(&buf)}
	r := &run{k: k}
	r.p.SessionID = "s-1"
	k.runs = map[*run]bool{r: true}
	k.lookedUp("telemetry.example.com", "A")
	k.lookedUp("telemetry.example.com", "AAAA")
	r.flushObservations()
	rd := NewObservationReader(writeTemp(t, buf.Bytes()))
	obs := rd.Take("s-1")
	if len(obs) != 1 || obs[0].Subject != SubjectBridge || !strings.Contains(obs[0].What, `"telemetry.example.com"`) || !strings.Contains(obs[0].What, "(2 times)") {
		t.Fatalf("observations = %+v, want one naming the host, seen twice", obs)
	}
}

// The reader hands each session its observations once, and keeps a line
// still being written for the next read.
func TestObservationFileRoundTrip(t *testing.T) {
	path := writeTemp(t, nil)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewObservationWriter(f)
	w.Write(Observation{SessionID: "a", Subject: "TA-01", What: "routing call"})
	w.Write(Observation{SessionID: "b", Subject: SubjectBridge, What: "lookup"})
	_, _ = f.WriteString(`{"session_id":"a","subject":"bridge","wh`)
	rd := NewObservationReader(path)
	if got := rd.Take("a"); len(got) != 1 || got[0].What != "routing call" {
		t.Fatalf("Take(a) = %+v", got)
	}
	_, _ = f.WriteString(`at":"late"}` + "\n")
	if got := rd.Take("a"); len(got) != 1 || got[0].What != "late" {
		t.Fatalf("Take(a) after the line ended = %+v", got)
	}
	if got := rd.Take("b"); len(got) != 1 {
		t.Fatalf("Take(b) = %+v", got)
	}
	if got := rd.Take("b"); len(got) != 0 {
		t.Fatalf("Take(b) twice = %+v", got)
	}
}

func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "obs.jsonl")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
