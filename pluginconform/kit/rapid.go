package kit

import (
	"crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"testing"
)

// RunMu makes runs take turns: rapid's settings are process-wide. A
// category's Run holds it for the whole run.
var RunMu sync.Mutex

// ConfigureRapid sets rapid's process-wide flags for the run (cases per
// property, the seed: 0 draws one) and returns the function that restores
// them, and the seed used. Outside a test binary the testing flags rapid
// reads must exist and be parsed first.
func ConfigureRapid(cases int, seed uint64) (func(), uint64, error) {
	if flag.Lookup("test.short") == nil {
		testing.Init()
	}
	if !flag.Parsed() {
		if err := flag.CommandLine.Parse(nil); err != nil {
			return nil, 0, err
		}
	}
	if seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	old := map[string]string{}
	restore := func() {
		for name, v := range old {
			_ = flag.Set(name, v)
		}
	}
	for name, v := range map[string]string{
		"rapid.checks":     strconv.Itoa(cases),
		"rapid.seed":       strconv.FormatUint(seed, 10),
		"rapid.nofailfile": "true",
	} {
		f := flag.Lookup(name)
		if f == nil {
			restore()
			return nil, 0, fmt.Errorf("rapid has no flag %s", name)
		}
		old[name] = f.Value.String()
		if err := flag.Set(name, v); err != nil {
			restore()
			return nil, 0, fmt.Errorf("rapid flag %s: %w", name, err)
		}
	}
	return restore, seed, nil
}

// SetChecks changes the number of cases for the next property.
func SetChecks(n int) { _ = flag.Set("rapid.checks", strconv.Itoa(n)) }

// TB is the rapid.TB of a property: it keeps the outcome instead of
// failing a test.
type TB struct {
	mu     sync.Mutex
	failed bool
}

func (t *TB) Helper()               {}
func (t *TB) Name() string          { return "conform-plugin" }
func (t *TB) Logf(string, ...any)   {}
func (t *TB) Log(...any)            {}
func (t *TB) Skipf(string, ...any)  {}
func (t *TB) Skip(...any)           {}
func (t *TB) SkipNow()              {}
func (t *TB) Errorf(string, ...any) { t.Fail() }
func (t *TB) Error(...any)          { t.Fail() }
func (t *TB) Fatalf(string, ...any) { t.Fail() }
func (t *TB) Fatal(...any)          { t.Fail() }
func (t *TB) FailNow()              { t.Fail() }
func (t *TB) Fail()                 { t.mu.Lock(); t.failed = true; t.mu.Unlock() }
func (t *TB) Failed() bool          { t.mu.Lock(); defer t.mu.Unlock(); return t.failed }
