package plangate

import "sync"

// Store keeps ALWAYS-scoped answers across the sessions of one profile.
type Store interface {
	Lookup(profile, provider, tool string) (decision string, ok bool)
	Remember(profile, provider, tool, decision string)
}

// MemoryStore is a Store that lasts as long as the kernel process.
type MemoryStore struct {
	mu sync.Mutex
	m  map[[3]string]string
}

// Lookup implements Store.
func (s *MemoryStore) Lookup(profile, provider, tool string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.m[[3]string{profile, provider, tool}]
	return d, ok
}

// Remember implements Store.
func (s *MemoryStore) Remember(profile, provider, tool, decision string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[[3]string]string{}
	}
	s.m[[3]string{profile, provider, tool}] = decision
}
