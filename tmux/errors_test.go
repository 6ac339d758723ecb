package tmux

import (
	"errors"
	"testing"
)

// The texts are tmux 3.3a's own (../shared/reference/tmux-failure-modes.md
// section 1.0); the contract suite produces most of them for real.
func TestClassify(t *testing.T) {
	tests := []struct {
		stderr string
		want   error
		class  string
	}{
		{"no server running on /tmp/tmux-1000/default\n", ErrNoServer, "no_server"},
		{"error connecting to /tmp/x/s (No such file or directory)\n", ErrSocketMissing, "socket_missing"},
		{"server exited unexpectedly\n", ErrServerExited, "server_exited"},
		{"lost server\n", ErrServerExited, "server_exited"},
		{"directory /tmp/tmux-0 has unsafe permissions\n", ErrPermission, "permission"},
		{"error connecting to /tmp/x/s (Permission denied)\n", ErrPermission, "permission"},
		{"access not allowed\n", ErrPermission, "permission"},
		{"protocol version mismatch (client 8, server 7)\n", ErrVersionMismatch, "version_mismatch"},
		{"server version is too old for client\n", ErrVersionMismatch, "version_mismatch"},
		{"open terminal failed: not a terminal\n", ErrVersionMismatch, "version_mismatch"},
		{"can't find session: work\n", ErrSessionNotFound, "session_not_found"},
		{"no current target\n", ErrSessionNotFound, "session_not_found"},
		{"can't find window: @9\n", ErrWindowNotFound, "window_not_found"},
		{"can't find pane: %999\n", ErrPaneNotFound, "pane_not_found"},
		{"duplicate session: main\n", ErrDuplicateSession, "duplicate_session"},
		{"create window failed: fork failed: No space left on device\n", ErrSpawnFailed, "spawn_failed"},
		{"create pane failed: fork failed: Device not configured\n", ErrSpawnFailed, "spawn_failed"},
		{"unknown command: frobnicate\n", ErrCommand, "command"},
	}
	for _, tt := range tests {
		t.Run(tt.class, func(t *testing.T) {
			class := Classify(tt.stderr)
			if class != tt.want {
				t.Errorf("Classify(%q) = %v, want %v", tt.stderr, class, tt.want)
			}
			err := error(&CommandError{Args: []string{"x"}, Stderr: tt.stderr, ExitCode: 1, Class: class})
			if !errors.Is(err, tt.want) || !errors.Is(err, ErrCommand) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.want)
			}
			if got := ClassName(err); got != tt.class {
				t.Errorf("ClassName = %q, want %q", got, tt.class)
			}
		})
	}
}

func TestConnLostError(t *testing.T) {
	tests := []struct {
		reason                        string
		serverExited, timeout, isDown bool
	}{
		{"server exited unexpectedly", true, false, true},
		{"EOF", false, false, true},
		{"list-sessions timed out", false, true, true},
	}
	for _, tt := range tests {
		err := error(&ConnLostError{Reason: tt.reason})
		if !errors.Is(err, ErrConnectionLost) {
			t.Errorf("%q: not ErrConnectionLost", tt.reason)
		}
		if got := errors.Is(err, ErrServerExited); got != tt.serverExited {
			t.Errorf("%q: Is(ErrServerExited) = %v, want %v", tt.reason, got, tt.serverExited)
		}
		if got := errors.Is(err, ErrTimeout); got != tt.timeout {
			t.Errorf("%q: Is(ErrTimeout) = %v, want %v", tt.reason, got, tt.timeout)
		}
		if got := IsServerDown(err); got != tt.isDown {
			t.Errorf("%q: IsServerDown = %v, want %v", tt.reason, got, tt.isDown)
		}
	}
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in                  string
		major, minor        int
		patch               string
		dev                 bool
		controlCapture, cf  bool
		notifyInBlock, fail bool
	}{
		{in: "tmux 3.0", major: 3, minor: 0, notifyInBlock: true},
		{in: "tmux 3.0a", major: 3, minor: 0, patch: "a", notifyInBlock: true},
		{in: "tmux 3.1c", major: 3, minor: 1, patch: "c", notifyInBlock: true},
		{in: "tmux 3.2", major: 3, minor: 2, cf: true, notifyInBlock: true},
		{in: "tmux 3.2a", major: 3, minor: 2, patch: "a", cf: true, notifyInBlock: true},
		{in: "tmux 3.3a", major: 3, minor: 3, patch: "a", cf: true, notifyInBlock: true},
		{in: "3.4", major: 3, minor: 4, cf: true, notifyInBlock: true},
		{in: "tmux 3.5a", major: 3, minor: 5, patch: "a", cf: true, notifyInBlock: true},
		{in: "tmux 3.6", major: 3, minor: 6, controlCapture: true, cf: true, notifyInBlock: true},
		{in: "tmux 3.6a", major: 3, minor: 6, patch: "a", controlCapture: true, cf: true, notifyInBlock: true},
		{in: "tmux next-3.6", major: 3, minor: 6, dev: true, controlCapture: true, cf: true, notifyInBlock: true},
		{in: "tmux next-3.8", major: 3, minor: 8, dev: true, controlCapture: true, cf: true, notifyInBlock: true},
		{in: "tmux master", major: 1 << 30, dev: true, controlCapture: true, cf: true, notifyInBlock: true},
		{in: "tmux 3", fail: true},
		{in: "tmux 3.x", fail: true},
		{in: "tmux 3.3zz", fail: true},
		{in: "", fail: true},
	}
	for _, tt := range tests {
		v, err := ParseVersion(tt.in)
		if (err != nil) != tt.fail {
			t.Errorf("ParseVersion(%q) error = %v, want failure %v", tt.in, err, tt.fail)
			continue
		}
		if tt.fail {
			continue
		}
		if v.Major != tt.major || v.Minor != tt.minor || v.Patch != tt.patch || v.Dev != tt.dev {
			t.Errorf("ParseVersion(%q) = %+v, want %d.%d%s dev=%v", tt.in, v, tt.major, tt.minor, tt.patch, tt.dev)
		}
		c := v.Capabilities()
		if c.ControlCapture != tt.controlCapture || c.ClientFlags != tt.cf || c.ControlNotifyInBlock != tt.notifyInBlock {
			t.Errorf("%q capabilities = %+v, want capture %v flags %v notify-in-block %v",
				tt.in, c, tt.controlCapture, tt.cf, tt.notifyInBlock)
		}
	}
}
