package httpmcp

import "testing"

// TestSessionCap: the manager holds at most max live sessions, forgets
// ended ones, and reservations count against the cap.
func TestSessionCap(t *testing.T) {
	s := newSessionCap(2)
	a, b := s.Generate(), s.Generate()
	if _, err := s.Validate(a); err != nil {
		t.Errorf("Validate(live %s) = %v, want nil", a, err)
	}
	if s.reserve() {
		t.Errorf("reserve at the cap = true, want false")
	}
	over := s.Generate()
	if _, err := s.Validate(over); err == nil {
		t.Errorf("an ID generated at the cap is live; want it not kept")
	}
	s.Terminate(b) //nolint:errcheck // never fails
	if _, err := s.Validate(b); err == nil {
		t.Errorf("Validate(ended %s) = nil, want an error (404)", b)
	}
	if !s.reserve() {
		t.Fatalf("reserve under the cap = false, want true")
	}
	if s.reserve() {
		t.Errorf("second reserve with one live and one reserved = true, want false")
	}
	s.release()
	if !s.reserve() {
		t.Errorf("reserve after release = false, want true")
	}
}
