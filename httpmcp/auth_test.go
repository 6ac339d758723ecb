package httpmcp

import (
	"strings"
	"testing"
)

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

// TestTokenHelp checks what a refusal says about the token for each way
// of giving one: the file to read (not named to other hosts), or the
// variable, and each client's line with it.
func TestTokenHelp(t *testing.T) {
	const url = "http://127.0.0.1:8808/mcp"
	tests := []struct {
		name string
		srv  Server
		want []string
		not  []string
	}{
		{"generated", Server{tokenFile: "/run/user/1/tmux-mcp/t.token", generated: true},
			[]string{"The token is in /run/user/1/tmux-mcp/t.token, new at each start",
				`claude mcp add --transport http tmux-mcp ` + url + ` --header "Authorization: Bearer $(cat /run/user/1/tmux-mcp/t.token)"`,
				`codex mcp add tmux-mcp --url ` + url + ` --bearer-token-env-var TMUX_MCP_HTTP_TOKEN, and start codex with TMUX_MCP_HTTP_TOKEN=$(cat /run/user/1/tmux-mcp/t.token)`,
				`gemini mcp add -s user -t http -H "Authorization: Bearer $(cat /run/user/1/tmux-mcp/t.token)" tmux-mcp ` + url},
			nil},
		{"token file", Server{tokenFile: "/home/u/.config/tmux-mcp/http-token"},
			[]string{"The token is in /home/u/.config/tmux-mcp/http-token (--http-token-file).", "$(cat /home/u/.config/tmux-mcp/http-token)"},
			nil},
		{"environment", Server{},
			[]string{"The token is the $TMUX_MCP_HTTP_TOKEN tmux-mcp was started with.", `--header "Authorization: Bearer <token>"`},
			[]string{"$(cat"}},
		{"remote", Server{o: Options{AllowRemote: true}, tokenFile: "/run/user/1/tmux-mcp/t.token", generated: true},
			[]string{"in the file tmux-mcp logged when it started (token_file=TOKEN_FILE)", "$(cat TOKEN_FILE)"},
			[]string{"/run/user/1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newTokenHelp(&tt.srv, url).text("no bearer token.")
			for _, w := range append(tt.want, `Send the header "Authorization: Bearer <token>"`, "does not do OAuth") {
				if !strings.Contains(got, w) {
					t.Errorf("refusal lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("refusal holds %q:\n%s", n, got)
				}
			}
		})
	}
}
