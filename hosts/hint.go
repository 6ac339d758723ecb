package hosts

import (
	"errors"
	"fmt"
	"strings"
)

// hintFor says what to do about a failed connection, from what ssh said.
func hintFor(err error, t Target, o Options) string {
	msg := err.Error()
	switch {
	case errors.Is(err, errNotInstalled):
		if o.Install {
			return ""
		}
		v := o.Version
		if v == "" || v == "dev" {
			v = "latest"
		}
		return fmt.Sprintf("Install tmux-mcp on %s (go install github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp@%s, or a release binary, on its PATH), "+
			"or start tmux-mcp with --host-install to copy this binary there (same OS and CPU only)", t.Host, v)
	case errors.Is(err, errUntrusted):
		return fmt.Sprintf("Another user could have put or changed the tmux-mcp in the install cache on %s, so tmux-mcp neither runs nor "+
			"replaces it: check who owns it and the directories above it, remove it if it is not yours, make those directories writable "+
			"by you only (chmod go-w), or point XDG_CACHE_HOME there at a directory only you can write", t.Host)
	case errors.Is(err, errOtherBuild) && !o.Install:
		return fmt.Sprintf("The tmux-mcp in the install cache on %s is not this binary (an earlier --host-install of another version, "+
			"or changed since): tmux-mcp runs a cached copy only when it is this one. Start tmux-mcp with --host-install to replace it, "+
			"or install tmux-mcp on the host's PATH", t.Host)
	case strings.Contains(msg, "Host key verification failed"), strings.Contains(msg, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		return fmt.Sprintf("ssh does not know %s's host key, or it changed: connect once with `ssh %s` yourself and check the key; "+
			"tmux-mcp never accepts a host key for you", t.Host, sshDest(t))
	case strings.Contains(msg, "Permission denied"):
		return fmt.Sprintf("ssh could not log in without a password (BatchMode): add your key to %s (ssh-copy-id) or to your ssh agent", t.Host)
	case strings.Contains(msg, "Could not resolve hostname"):
		return fmt.Sprintf("The name %s does not resolve: check it, or the Host entry of your ssh config; tmux-mcp keeps trying with backoff", t.Host)
	case strings.Contains(msg, "Connection refused"), strings.Contains(msg, "No route to host"), strings.Contains(msg, "Connection timed out"):
		return "sshd on the host is not reachable; tmux-mcp keeps trying with backoff"
	}
	return ""
}

// versionHint reports a remote tmux-mcp of another version.
func versionHint(remote string, o Options) string {
	if remote == "" || o.Version == "" || remote == o.Version || o.Install {
		return ""
	}
	return fmt.Sprintf("The host runs tmux-mcp %s, this one is %s: tools or arguments added since may be missing there "+
		"(--host-install copies this binary there)", remote, o.Version)
}

func sshDest(t Target) string {
	d := t.Host
	if t.User != "" {
		d = t.User + "@" + d
	}
	if t.Port != 0 {
		d = fmt.Sprintf("-p %d %s", t.Port, d)
	}
	return d
}
