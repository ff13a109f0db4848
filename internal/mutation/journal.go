package mutation

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

// The journal makes a long campaign resumable: every verdict is appended as
// soon as it is known, and a resumed campaign takes the verdicts of mutants
// whose key and place are unchanged instead of judging them again.

func journalKey(m Mutant) string { return fmt.Sprintf("%s@%d:%d", m.Key, m.Line, m.Col) }

func loadJournal(cfg Config) (map[string]Result, error) {
	done := map[string]Result{}
	if cfg.Journal == "" || !cfg.Resume {
		return done, nil
	}
	f, err := os.Open(cfg.Journal)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			// A line cut short by an interrupted campaign is judged again.
			continue
		}
		if r.Status == HarnessError {
			continue
		}
		done[journalKey(r.Mutant)] = r
	}
	return done, sc.Err()
}

type journalWriter struct {
	mu  sync.Mutex
	f   *os.File
	err error
}

func openJournal(cfg Config) (*journalWriter, error) {
	if cfg.Journal == "" {
		return &journalWriter{}, nil
	}
	flag := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if !cfg.Resume {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(cfg.Journal, flag, 0o644)
	if err != nil {
		return nil, err
	}
	return &journalWriter{f: f}, nil
}

func (j *journalWriter) write(r Result) {
	if j.f == nil {
		return
	}
	b, err := json.Marshal(r)
	j.mu.Lock()
	defer j.mu.Unlock()
	if err == nil {
		_, err = j.f.Write(append(b, '\n'))
	}
	if err != nil && j.err == nil {
		j.err = err
	}
}

func (j *journalWriter) close() {
	if j.f != nil {
		_ = j.f.Close()
	}
}
