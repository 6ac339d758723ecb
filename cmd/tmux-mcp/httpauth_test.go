package main

import "testing"

func TestBearer(t *testing.T) {
	tests := []struct {
		header    string
		want      string
		wantGiven bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"  Bearer   abc  ", "abc", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Basic abc", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, given := bearer(tt.header)
		if got != tt.want || given != tt.wantGiven {
			t.Errorf("bearer(%q) = %q, %v; want %q, %v", tt.header, got, given, tt.want, tt.wantGiven)
		}
	}
}
