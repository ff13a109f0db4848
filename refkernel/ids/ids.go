package ids

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
)

// Generator returns a fresh identifier for something of the given kind
// ("turn", "plan"). Identifiers must be unique per kind within a process.
type Generator func(kind string) string

// Random returns a generator of kind-prefixed random identifiers, unique
// across processes, which is what a kernel serving several harness runs
// wants.
func Random() Generator {
	return func(kind string) string {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
		return kind + "_" + hex.EncodeToString(b[:])
	}
}

// Sequence returns a generator of kind-prefixed counters ("turn-1",
// "turn-2", "plan-1"), one counter per kind, for deterministic tests.
func Sequence() Generator {
	var mu sync.Mutex
	next := map[string]int{}
	return func(kind string) string {
		mu.Lock()
		defer mu.Unlock()
		next[kind]++
		return kind + "-" + strconv.Itoa(next[kind])
	}
}
