package tmux

import (
	"fmt"
	"regexp"
	"strings"
)

// A tmux server keeps the environment of the process that started it as
// its global environment, and every pane it makes inherits that
// (show-environment -g shows it). tmux-mcp starts servers (StartServer,
// and a command that may start one runs the tmux binary), so what
// tmux-mcp's own environment holds would reach every pane: its HTTP token
// (TMUX_MCP_HTTP_TOKEN), its OpenTelemetry headers, the MCP client's API
// keys. A tmux process tmux-mcp runs therefore gets an allow-list
// (ServerEnvNames), plus the names the user passes (--pass-env); never
// tmux-mcp's own settings (TMUX_MCP_*), OpenTelemetry's (OTEL_*), or TMUX
// and TMUX_PANE (which would point tmux at the caller's server).

// serverEnvNames are the variables a tmux process tmux-mcp runs keeps: what
// a shell, the programs in panes and tmux itself need to behave as in the
// user's own terminal, and no secret. A name ending in "*" keeps every
// name with that prefix.
var serverEnvNames = []string{
	// who and where
	"HOME", "USER", "LOGNAME", "SHELL", "PATH", "HOSTNAME", "MAIL", "TZ", "TMPDIR", "TMUX_TMPDIR", "XDG_*",
	// language and terminal
	"LANG", "LANGUAGE", "LC_*", "TERM", "COLORTERM",
	// the desktop and the agents a session reaches (tmux's own
	// update-environment default names among them)
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "WINDOWID",
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_CONNECTION", "SSH_ASKPASS", "KRB5CCNAME", "MSYSTEM",
	// preferred programs
	"EDITOR", "VISUAL", "PAGER", "LESS", "MANPATH",
}

// ServerEnvNames returns the names (and NAME* prefixes) of the variables
// that a tmux process tmux-mcp runs keeps by default.
func ServerEnvNames() []string { return append([]string(nil), serverEnvNames...) }

// neverPassed reports whether name is one tmux-mcp never gives a tmux it
// runs, whatever --pass-env says: its own settings and secrets, the
// OpenTelemetry settings (OTEL_EXPORTER_OTLP_HEADERS carries credentials),
// and the caller's tmux.
func neverPassed(name string) bool {
	return strings.HasPrefix(name, "TMUX_MCP_") || strings.HasPrefix(name, "OTEL_") || name == "TMUX" || name == "TMUX_PANE"
}

// passEnvRe is one --pass-env entry: a variable name, or a prefix and "*"
// ("*" alone: every name).
var passEnvRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\*?|\*)$`)

// CheckPassEnv checks the names a user passes on to tmux servers: each a
// variable name or a prefix followed by "*", none of them a name that is
// never passed (neverPassed).
func CheckPassEnv(names []string) error {
	for _, n := range names {
		prefix, pattern := strings.CutSuffix(n, "*")
		switch {
		case !passEnvRe.MatchString(n):
			return fmt.Errorf("%q: want a variable name, or a prefix and * (LC_*)", n)
		case !pattern && neverPassed(n),
			pattern && (strings.HasPrefix(prefix, "TMUX_MCP_") || strings.HasPrefix(prefix, "OTEL_")):
			// Nothing it names could pass: say so rather than ignore it.
			return fmt.Errorf("%q: tmux-mcp's own settings (TMUX_MCP_*), OpenTelemetry's (OTEL_*), TMUX and TMUX_PANE never reach a tmux server", n)
		}
	}
	return nil
}

// ServerEnviron returns the part of env (KEY=VALUE entries) that a tmux
// process tmux-mcp runs gets: the names ServerEnvNames lists and those
// pass adds (names or NAME* prefixes), never one that neverPassed names.
func ServerEnviron(env, pass []string) []string {
	allow := append(ServerEnvNames(), pass...)
	var out []string
	for _, kv := range env {
		name, _, ok := cutEnv(kv)
		if !ok || neverPassed(name) {
			continue
		}
		for _, a := range allow {
			if a == name || strings.HasSuffix(a, "*") && strings.HasPrefix(name, strings.TrimSuffix(a, "*")) {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

// cutEnv splits a KEY=VALUE entry; ok is false for one without '=' or a
// name.
func cutEnv(kv string) (name, value string, ok bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], i > 0
		}
	}
	return "", "", false
}
