package mutants

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
)

// A retry loop as it is often written (issue 29, "checks that judge only
// what the kernel announces"): a fixed 1 s wait doubled on each retry, no
// jitter, the configured base delay and factor ignored, and no delay_ms in
// its retry events nor any jitter reading declared. Every wait it makes is
// longer than the small bases most scenarios set, so arrival-time ceilings
// (wide on purpose: a loaded machine stalls retries by seconds) never catch
// it, and before the announced checks said "not applicable" without an
// announcement it passed ER-01 outright. Now its jitter is not verified
// (ER-01 partial, naming the clause) and the slow scenario with a 4 s base
// kills it from arrival times alone: twenty first retries of 1 s are all
// far below the share of the nominal delay full jitter reaches. It is
// judged with the slow scenarios (Slow), as `conform run --slow` would.
func init() {
	register(Mutant{Name: "retry/fixed-second-unannounced", Targets: []string{"ER-01", "ER-05"},
		Breaks:  "every retry waits 1 s doubled per retry, without jitter, whatever base and factor the config sets; no delay_ms announced, no jitter reading declared",
		Apply:   withRetry(fixedSecond{}),
		Options: []refkernel.Option{withoutReadings("retry.jitter_min_ratio", "retry.jitter_max_ratio")},
		Wire:    withoutDelayMS,
		Slow:    true,
	})
}

type fixedSecond struct{ retry.Backoff }

func (fixedSecond) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := ref.Decide(cfg, e, s)
	if d.Action == retry.Retry {
		d.Delay = time.Second << min(max(s.Attempt-1, 0), 10)
		if e.RetryAfterMS != nil {
			d.Delay = max(d.Delay, time.Duration(*e.RetryAfterMS)*time.Millisecond)
		}
	}
	return d
}

// withoutDelayMS takes delay_ms out of every retry event the kernel
// sends: the kernel announces its retries, not its waits. The wire is one
// JSON-RPC message a line.
func withoutDelayMS(out io.Writer) io.Writer { return &lineFilter{w: out, edit: dropDelayMS} }

func dropDelayMS(line []byte) []byte {
	if !bytes.Contains(line, []byte(`"delay_ms"`)) {
		return line
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil {
		return line
	}
	var ev map[string]any
	if json.Unmarshal(msg["params"], &ev) != nil || ev["kind"] != wire.EventRetry {
		return line
	}
	if p, ok := ev["payload"].(map[string]any); ok {
		delete(p, "delay_ms")
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return line
	}
	msg["params"] = b
	if b, err = json.Marshal(msg); err != nil {
		return line
	}
	return append(b, '\n')
}

// lineFilter rewrites whole lines; a partial line waits for its end.
type lineFilter struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	edit func([]byte) []byte
}

func (f *lineFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf = append(f.buf, p...)
	for {
		i := bytes.IndexByte(f.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := f.edit(append([]byte(nil), f.buf[:i+1]...))
		f.buf = f.buf[i+1:]
		if _, err := f.w.Write(line); err != nil {
			return len(p), err
		}
	}
}
