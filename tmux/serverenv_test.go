package tmux

import (
	"slices"
	"testing"
)

func TestServerEnviron(t *testing.T) {
	env := []string{
		"HOME=/home/u", "PATH=/bin", "LC_TIME=C", "XDG_RUNTIME_DIR=/run/u", "TMUX_TMPDIR=/t",
		"ANTHROPIC_API_KEY=k", "TMUX_MCP_HTTP_TOKEN=t", "OTEL_EXPORTER_OTLP_HEADERS=h",
		"TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%1", "AWS_PROFILE=p", "GOPATH=/go", "GOFLAGS=-x", "=odd",
	}
	tests := []struct {
		name string
		pass []string
		want []string
	}{
		{"allow-list", nil, []string{"HOME=/home/u", "PATH=/bin", "LC_TIME=C", "XDG_RUNTIME_DIR=/run/u", "TMUX_TMPDIR=/t"}},
		{"passed name and prefix", []string{"AWS_PROFILE", "GO*"},
			[]string{"HOME=/home/u", "PATH=/bin", "LC_TIME=C", "XDG_RUNTIME_DIR=/run/u", "TMUX_TMPDIR=/t", "AWS_PROFILE=p", "GOPATH=/go", "GOFLAGS=-x"}},
		{"everything but never", []string{"*"},
			[]string{"HOME=/home/u", "PATH=/bin", "LC_TIME=C", "XDG_RUNTIME_DIR=/run/u", "TMUX_TMPDIR=/t", "ANTHROPIC_API_KEY=k", "AWS_PROFILE=p", "GOPATH=/go", "GOFLAGS=-x"}},
		{"never, even when named", []string{"TMUX*", "OTEL_EXPORTER_OTLP_HEADERS", "TMUX_PANE"},
			[]string{"HOME=/home/u", "PATH=/bin", "LC_TIME=C", "XDG_RUNTIME_DIR=/run/u", "TMUX_TMPDIR=/t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ServerEnviron(env, tt.pass); !slices.Equal(got, tt.want) {
				t.Errorf("ServerEnviron(pass %q) = %q, want %q", tt.pass, got, tt.want)
			}
		})
	}
}

func TestCheckPassEnv(t *testing.T) {
	tests := []struct {
		names []string
		ok    bool
	}{
		{nil, true},
		{[]string{"AWS_PROFILE", "GO*", "*", "TMUX*", "TMUX_TMPDIR"}, true},
		{[]string{"TMUX_MCP_HTTP_TOKEN"}, false},
		{[]string{"TMUX_MCP_*"}, false},
		{[]string{"OTEL_*"}, false},
		{[]string{"TMUX"}, false},
		{[]string{"A=B"}, false},
		{[]string{"*A"}, false},
		{[]string{""}, false},
	}
	for _, tt := range tests {
		if err := CheckPassEnv(tt.names); (err == nil) != tt.ok {
			t.Errorf("CheckPassEnv(%q) = %v, want ok %v", tt.names, err, tt.ok)
		}
	}
}
