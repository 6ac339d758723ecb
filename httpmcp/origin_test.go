package httpmcp

import "testing"

func TestAllowedOrigin(t *testing.T) {
	def, err := parseOrigins(DefaultOrigins)
	if err != nil {
		t.Fatal(err)
	}
	custom, err := parseOrigins("https://app.example.com, http://[fe80::1]:8080,vscode-webview://abc")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rules  []originRule
		origin string
		want   bool
	}{
		{def, "http://localhost", true},
		{def, "http://localhost:5173", true},
		{def, "https://LOCALHOST:8443", true},
		{def, "http://127.0.0.1:3000", true},
		{def, "http://[::1]:3000", true},
		{def, "http://evil.example", false},
		{def, "http://localhost.evil.example", false},
		{def, "http://127.0.0.2", false},
		{def, "null", false},
		{def, "", false},
		{def, "ftp://localhost", false},
		{def, "http://user@localhost", false},
		{def, "http://localhost/path", false},
		{custom, "https://app.example.com", true},
		{custom, "https://app.example.com:443", true},
		{custom, "https://app.example.com:8443", false},
		{custom, "http://app.example.com", false},
		{custom, "http://[fe80::1]:8080", true},
		{custom, "http://[fe80::1]", false},
		{custom, "vscode-webview://abc", true},
		{nil, "http://localhost", false},
	}
	for _, tt := range tests {
		if got := allowedOrigin(tt.rules, tt.origin); got != tt.want {
			t.Errorf("allowedOrigin(%v, %q) = %v, want %v", tt.rules, tt.origin, got, tt.want)
		}
	}
}

func TestParseOriginsErrors(t *testing.T) {
	for _, list := range []string{"http://x:99999", "http://x:abc", "://x", "[::1", "[::1]8080", "*", "http://x/y", "a:*:*"} {
		if _, err := parseOrigins(list); err == nil {
			t.Errorf("parseOrigins(%q): no error, want one", list)
		}
	}
	if rules, err := parseOrigins(" , "); err != nil || len(rules) != 0 {
		t.Errorf("parseOrigins(blank) = %v, %v; want no rules", rules, err)
	}
}
