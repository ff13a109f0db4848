package pluginconform

import (
	"crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"testing"
)

// configureRapid sets rapid's process-wide flags for the run and returns
// the function that restores them, and the seed used. Outside a test
// binary the testing flags rapid reads must exist and be parsed first.
func configureRapid(opt Options) (func(), uint64, error) {
	if flag.Lookup("test.short") == nil {
		testing.Init()
	}
	if !flag.Parsed() {
		if err := flag.CommandLine.Parse(nil); err != nil {
			return nil, 0, err
		}
	}
	seed := opt.Seed
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
		"rapid.checks":     strconv.Itoa(opt.Cases),
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

// setChecks changes the number of cases for the next property.
func setChecks(n int) { _ = flag.Set("rapid.checks", strconv.Itoa(n)) }

// tb is the rapid.TB of a property: it keeps the outcome instead of
// failing a test.
type tb struct {
	mu     sync.Mutex
	failed bool
}

func (t *tb) Helper()               {}
func (t *tb) Name() string          { return "conform-plugin" }
func (t *tb) Logf(string, ...any)   {}
func (t *tb) Log(...any)            {}
func (t *tb) Skipf(string, ...any)  {}
func (t *tb) Skip(...any)           {}
func (t *tb) SkipNow()              {}
func (t *tb) Errorf(string, ...any) { t.Fail() }
func (t *tb) Error(...any)          { t.Fail() }
func (t *tb) Fatalf(string, ...any) { t.Fail() }
func (t *tb) Fatal(...any)          { t.Fail() }
func (t *tb) FailNow()              { t.Fail() }
func (t *tb) Fail()                 { t.mu.Lock(); t.failed = true; t.mu.Unlock() }
func (t *tb) Failed() bool          { t.mu.Lock(); defer t.mu.Unlock(); return t.failed }
