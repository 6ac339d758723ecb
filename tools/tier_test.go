package tools

import (
	"testing"
)

func TestParseTier(t *testing.T) {
	tests := []struct {
		in      string
		want    Tier
		wantErr bool
	}{
		{"readonly", Readonly, false},
		{"mutating", Mutating, false},
		{"Destructive", Destructive, false},
		{"", Readonly, true},
		{"root", Readonly, true},
	}
	for _, tt := range tests {
		got, err := ParseTier(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseTier(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
