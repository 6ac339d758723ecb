// Package spawn is how a tmux server process that tmux-mcp starts is set
// up before it runs: outside the login session that started tmux-mcp (a
// session of its own, and a user manager's scope where logind would end
// the login session's processes: detach.go), and with an fd limit of its
// own (fdlimit.go, the platform's side in fdlimit_linux.go and
// fdlimit_darwin.go). Only package tmux imports it: tmux's StartServer
// starts the process.
package spawn

import (
	"os/exec"
	"syscall"
)

// A server outside the login session. tmux's own servers daemonize
// (daemon(3): a fork and setsid) and so leave the session of the client
// that started them; tmux -D, which StartServer runs so that the server
// is tmux-mcp's child and its exit status known, does not. Such a server
// would stay in the session of whoever started tmux-mcp, over ssh the
// ssh connection's, and what ends a session would end it and its panes:
// sshd's and the kernel's SIGHUP to a terminal's session, a killing of
// the session's processes or process groups, and logind with
// KillUserProcesses=yes, which stops the session's scope unit and so
// kills every process in its cgroup, whatever its session. So a server
// tmux-mcp starts runs in a session and process group of its own
// (setsid), and, on Linux, where this process lives in a login session's
// scope (session-N.scope) and the user's systemd manager runs, in a
// transient scope of that manager (systemd-run --user --scope, which
// execs tmux in place: the server is still tmux-mcp's child, watched and
// reaped as before). That manager ends with the user's last session
// unless lingering is on (loginctl enable-linger): docs/hosts.md.

// Detached returns the command that starts argv (tmux -D) outside the
// login session: in a user manager's scope if scope and there is one
// (inScope says so), in a session of its own in any case.
func Detached(argv []string, env []string, scope bool) (cmd *exec.Cmd, inScope bool) {
	if scope {
		if wrap := userScopeArgv(env); wrap != nil {
			argv, inScope = append(wrap, argv...), true
		}
	}
	cmd = exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, inScope
}
