package diagnostics

import (
	"slices"
	"testing"
)

// TestStillListening: after a refused connect, only the processes that
// hold the socket then count as its listeners.
func TestStillListening(t *testing.T) {
	seen := []procFacts{{PID: 10}, {PID: 11}}
	tests := []struct {
		name string
		now  []int
		want []int
	}{
		{"a passing fork let go", []int{10}, []int{10}},
		{"nobody holds it now", nil, nil},
		{"both hold it", []int{11, 10}, []int{10, 11}},
		{"a new holder is not added", []int{12}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for _, p := range stillListening(seen, tt.now) {
				got = append(got, p.PID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("stillListening(%v) = %v, want %v", tt.now, got, tt.want)
			}
		})
	}
}
