package httpmcp

import "testing"

func TestCheckListenAddr(t *testing.T) {
	tests := []struct {
		addr    string
		remote  bool
		wantErr bool
	}{
		{"127.0.0.1:8080", false, false},
		{"[::1]:8080", false, false},
		{"localhost:0", false, false},
		{":8080", false, true},
		{"0.0.0.0:8080", false, true},
		{"192.168.1.2:80", false, true},
		{"0.0.0.0:8080", true, false},
		{"nonsense", false, true},
	}
	for _, tt := range tests {
		if err := checkListenAddr(tt.addr, tt.remote); (err != nil) != tt.wantErr {
			t.Errorf("checkListenAddr(%q, %v) = %v, want error %v", tt.addr, tt.remote, err, tt.wantErr)
		}
	}
}
