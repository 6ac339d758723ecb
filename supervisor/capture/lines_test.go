package capture

import (
	"slices"
	"testing"
)

func TestCapTail(t *testing.T) {
	tests := []struct {
		lines              []string
		maxLines, maxBytes int
		want               []string
		dropL, dropB       int
	}{
		{[]string{"a", "b", "c"}, 5, 100, []string{"a", "b", "c"}, 0, 0},
		{[]string{"a", "b", "c"}, 2, 100, []string{"b", "c"}, 1, 2},
		{[]string{"aaaa", "bb", "cc"}, 5, 5, []string{"bb", "cc"}, 1, 5},
		{[]string{"aaaa", "bbbbbbbb"}, 5, 3, []string{"bbb"}, 1, 10},
		{[]string{"abcdef"}, 10, 3, []string{"def"}, 0, 3},
		{[]string{"x", "日本語"}, 5, 4, []string{"語"}, 1, 8},
		{[]string{"é", "xé"}, 10, 2, []string{"é"}, 1, 4},
		{nil, 5, 5, nil, 0, 0},
	}
	for _, tt := range tests {
		got, dl, db := CapTail(tt.lines, tt.maxLines, tt.maxBytes)
		if !slices.Equal(got, tt.want) || dl != tt.dropL || db != tt.dropB {
			t.Errorf("CapTail(%q, %d, %d) = %q, %d, %d; want %q, %d, %d", tt.lines, tt.maxLines, tt.maxBytes, got, dl, db, tt.want, tt.dropL, tt.dropB)
		}
	}
}

func TestTailLines(t *testing.T) {
	tests := []struct {
		lines       []string
		n, dropped  int
		want        []string
		wantDropped int
	}{
		{[]string{"a", "b", "c"}, 5, 0, []string{"a", "b", "c"}, 0},
		{[]string{"a", "b", "c"}, 2, 4, []string{"b", "c"}, 5},
		{nil, 3, 1, []string{}, 1},
	}
	for _, tt := range tests {
		got, dropped := TailLines(tt.lines, tt.n, tt.dropped)
		if !slices.Equal(got, tt.want) || got == nil || dropped != tt.wantDropped {
			t.Errorf("TailLines(%q, %d, %d) = %q, %d; want %q, %d", tt.lines, tt.n, tt.dropped, got, dropped, tt.want, tt.wantDropped)
		}
	}
}
