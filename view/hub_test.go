package view

import "testing"

func TestScrolled(t *testing.T) {
	for _, c := range []struct {
		name      string
		prev, cur []string
		want      int
	}{
		{"unchanged", []string{"a", "b", "c", "d"}, []string{"a", "b", "c", "d"}, 0},
		{"one line up", []string{"a", "b", "c", "d", ""}, []string{"b", "c", "d", "e", ""}, 1},
		{"two lines up, cursor line written", []string{"a", "b", "c", "d", "$ "}, []string{"c", "d", "$ e", "f", "$ "}, 2},
		{"a row changed in place", []string{"a", "b", "c", "d"}, []string{"a", "x", "c", "d"}, 0},
		{"blank screen", []string{"", "", "", ""}, []string{"", "", "", ""}, 0},
		{"everything new", []string{"a", "b", "c", "d"}, []string{"w", "x", "y", "z"}, 0},
		{"sizes differ", []string{"a", "b"}, []string{"a", "b", "c"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := scrolled(c.prev, c.cur); got != c.want {
				t.Errorf("scrolled(%q, %q) = %d, want %d", c.prev, c.cur, got, c.want)
			}
		})
	}
}
