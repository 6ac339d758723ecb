package loadtest

import (
	"testing"
)

func TestLabelRows(t *testing.T) {
	tests := []struct {
		name  string
		xs    []float64
		texts []string
		max   int
		want  []int
	}{
		{"apart", []float64{0, 100, 200}, []string{"kill", "back", "kill"}, 4, []int{0, 0, 0}},
		{"close together", []float64{0, 5, 10}, []string{"kill -9", "back", "socket"}, 4, []int{0, 1, 2}},
		{"a row frees up", []float64{0, 5, 60}, []string{"kill", "back", "stop"}, 4, []int{0, 1, 0}},
		{"given out of order", []float64{10, 0}, []string{"b", "a"}, 4, []int{1, 0}},
		{"more than the rows", []float64{0, 1, 2}, []string{"aaaa", "bbbb", "cccc"}, 2, []int{0, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := labelRows(tt.xs, tt.texts, tt.max)
			if len(got) != len(tt.want) {
				t.Fatalf("labelRows = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("labelRows = %v, want %v", got, tt.want)
					break
				}
			}
		})
	}
}
