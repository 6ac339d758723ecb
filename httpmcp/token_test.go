package httpmcp

import (
	"strings"
	"testing"
)

func TestTokenFileName(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"127.0.0.1:8808", "http-127.0.0.1_8808.token"},
		{"[::1]:8808", "http-___1__8808.token"},
		{"/run/user/1000/tmux-mcp.sock", "http-run_user_1000_tmux-mcp.sock.token"},
	}
	for _, tt := range tests {
		if got := tokenFileName(tt.addr); got != tt.want {
			t.Errorf("tokenFileName(%q) = %q, want %q", tt.addr, got, tt.want)
		}
	}
	if got := tokenFileName("/" + strings.Repeat("d/", 200) + "s"); len(got) > 255 {
		t.Errorf("tokenFileName of a long path: %d bytes, want at most 255", len(got))
	}
}
