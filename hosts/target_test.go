package hosts

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in      string
		want    Target
		wantErr string
	}{
		{in: "build=ssh://build.internal", want: Target{Name: "build", Host: "build.internal"}},
		{in: "gpu1=ssh://me@10.0.0.7:2222", want: Target{Name: "gpu1", User: "me", Host: "10.0.0.7", Port: 2222}},
		{in: "v6=ssh://[::1]:22", want: Target{Name: "v6", Host: "::1", Port: 22}},
		{in: "c=ssh://h?command=/opt/tmux-mcp/bin/tmux-mcp", want: Target{Name: "c", Host: "h", Command: "/opt/tmux-mcp/bin/tmux-mcp"}},
		{in: "build", wantErr: "want NAME=ssh://"},
		{in: "local=ssh://h", wantErr: "reserved"},
		{in: "all=ssh://h", wantErr: "reserved"},
		{in: "-x=ssh://h", wantErr: "host name"},
		{in: "b=http://h", wantErr: "only ssh://"},
		{in: "b=ssh://-oProxyCommand=x", wantErr: "not a host name"},
		{in: "b=ssh://-o@h", wantErr: "not a user name"},
		{in: "b=ssh://me:secret@h", wantErr: "no password"},
		{in: "b=ssh://me:se,cret@h", wantErr: "no password"},
		{in: "b=ssh://me:secret@h:bad", wantErr: "invalid port"},
		{in: "b=ssh://me:secret@-h", wantErr: "not a host name"},
		{in: "b=http://me:secret@h", wantErr: "only ssh://"},
		{in: "ssh://me:secret@h", wantErr: "want NAME=ssh://"},
		{in: "me:secret@h=ssh://h", wantErr: "host name"},
		{in: "b=ssh://$(id)@h", wantErr: "not a user name"},
		{in: "b=ssh://me%0Aid@h", wantErr: "not a user name"},
		{in: "b=ssh://`id`@h", wantErr: "invalid userinfo"},
		{in: "b=ssh://me;id@h", wantErr: "not a user name"},
		{in: "b=ssh://%25r@h", wantErr: "not a user name"},
		{in: "b=ssh://.me@h", wantErr: "not a user name"},
		{in: "dom=ssh://me@corp.example@h", want: Target{Name: "dom", User: "me@corp.example", Host: "h"}},
		{in: "u=ssh://build_bot-2.x@h", want: Target{Name: "u", User: "build_bot-2.x", Host: "h"}},
		{in: "b=ssh://h:99999", wantErr: "port"},
		{in: "b=ssh://h/srv", wantErr: "a path means nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTarget(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseTarget(%q) = %+v, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				if strings.Contains(tt.in, "cret") && strings.Contains(err.Error(), "cret") {
					t.Errorf("the error repeats the password: %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseTarget(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestSplitSpecs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a=ssh://h1 b=ssh://h2", []string{"a=ssh://h1", "b=ssh://h2"}},
		{"a=ssh://h1,b=ssh://me@h2\n\tc=ssh://h3,", []string{"a=ssh://h1", "b=ssh://me@h2", "c=ssh://h3"}},
		// A comma that no NAME= follows is the URL's (a password's here).
		{"a=ssh://me:se,cret@h1,b=ssh://h2", []string{"a=ssh://me:se,cret@h1", "b=ssh://h2"}},
	}
	for _, tt := range tests {
		if got := SplitSpecs(tt.in); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("SplitSpecs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"b=ssh://me:secret@h", "b=ssh://me:xxxxx@h"},
		{`invalid value "b=ssh://me:secret@h:22" for flag -host: host b: no password`, `invalid value "b=ssh://me:xxxxx@h:22" for flag -host: host b: no password`},
		{"a=ssh://me@h1,b=ssh://you:p,w@h2", "a=ssh://me@h1,b=ssh://you:xxxxx@h2"},
		{"b=me:secret@h", "b=me:xxxxx@h"},
		{"me:secret@h", "me:xxxxx@h"},
		{"b=ssh://me:s@cr@t@h", "b=ssh://me:xxxxx@h"},
		{"target=ssh://me@127.0.0.1:2222 rtt_ms=0.7", "target=ssh://me@127.0.0.1:2222 rtt_ms=0.7"},
		{"b=ssh://h?command=/x:y", "b=ssh://h?command=/x:y"},
		{"no at sign: a:b", "no at sign: a:b"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseTargetsNamedTwice(t *testing.T) {
	if _, err := ParseTargets([]string{"a=ssh://h1", "a=ssh://h2"}); err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Errorf("got %v, want named twice", err)
	}
}

func TestPlatformMatches(t *testing.T) {
	tests := []struct {
		system, machine, goos, goarch string
		want                          bool
	}{
		{"Linux", "x86_64", "linux", "amd64", true},
		{"Linux", "aarch64", "linux", "arm64", true},
		{"Darwin", "arm64", "darwin", "arm64", true},
		{"Darwin", "arm64", "linux", "arm64", false},
		{"Linux", "aarch64", "linux", "amd64", false},
	}
	for _, tt := range tests {
		if got := platformMatches(tt.system, tt.machine, tt.goos, tt.goarch); got != tt.want {
			t.Errorf("platformMatches(%s %s, %s/%s) = %v, want %v", tt.system, tt.machine, tt.goos, tt.goarch, got, tt.want)
		}
	}
}

// TestRemoteCommand: what the host's shell runs keeps every argument one
// word, and finds tmux-mcp on the PATH or in the install cache.
func TestRemoteCommand(t *testing.T) {
	l := newLink(Target{Name: "b", Host: "h"}, Options{RemoteArgs: []string{"serve", "--safety", "it's"}}.withDefaults())
	got := l.remoteCommand()
	for _, want := range []string{"sh -c '", `command -v tmux-mcp`, `x=$HOME/.cache;;`, `/tmux-mcp/bin/tmux-mcp`, `exit 127`, ` serve --safety 'it'\''s'`} {
		if !strings.Contains(got, want) {
			t.Errorf("remote command %s\nlacks %s", got, want)
		}
	}
	l = newLink(Target{Name: "b", Host: "h", User: "me", Port: 2222, Command: "/opt/tmux-mcp"}, Options{RemoteArgs: []string{"serve"}}.withDefaults())
	args := l.sshArgs(l.remoteCommand())
	if got, want := strings.Join(args, " "), "-T -o BatchMode=yes -o ServerAliveInterval=5 -o ServerAliveCountMax=3 -p 2222 -l me h /opt/tmux-mcp serve"; got != want {
		t.Errorf("ssh args\n got %s\nwant %s", got, want)
	}
}

func TestHintFor(t *testing.T) {
	tg := Target{Name: "b", Host: "build.internal", User: "me"}
	tests := []struct {
		err  string
		want string
	}{
		{"ssh: exit status 255: ssh: Could not resolve hostname build.internal: Name or service not known", "does not resolve"},
		{"ssh: exit status 255: ssh: connect to host build.internal port 22: Connection refused", "not reachable"},
		{"ssh: exit status 255: Host key verification failed.", "never accepts a host key"},
		{"ssh: exit status 255: me@build.internal: Permission denied (publickey).", "ssh-copy-id"},
		{"ssh: exit status 1: something else", ""},
	}
	for _, tt := range tests {
		got := hintFor(errors.New(tt.err), tg, Options{Version: "v1.2.3"})
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("hintFor(%q) = %q, want one with %q", tt.err, got, tt.want)
		}
	}
	if got := hintFor(fmt.Errorf("%w: ssh: exit status 127", errNotInstalled), tg, Options{Version: "v1.2.3"}); !strings.Contains(got, "cmd/tmux-mcp@v1.2.3") {
		t.Errorf("not installed: %q", got)
	}
}
