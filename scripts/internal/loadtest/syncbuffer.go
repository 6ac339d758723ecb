package loadtest

import "sync"

// SyncBuffer is a goroutine-safe buffer for a child process's stderr.
type SyncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}

// Tail returns the last n bytes written.
func (s *SyncBuffer) Tail(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b[max(len(s.b)-n, 0):])
}
