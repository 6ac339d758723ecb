package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// spinRegressions are the known regressions of the versions with the
// SpinRegressions capability (3.7.x; peers.md section 3).
const spinRegressions = "tmux 3.7.x has known regressions: clients busy-spin in sendmsg when the socket is congested " +
	"(h0x91b/dev-3.0 #810, which pins 3.6a); the server spins at 100% CPU in select() after an SSH client dies " +
	"uncleanly (tmux #5455, 3.7b); the server livelocks for good in server_client_ensure_ranges and only SIGKILL " +
	"ends it (tmux #5510, 3.7c)"

// deadPaneOutputCrash is the known crash of the versions with the
// DeadPaneOutputCrash capability (3.2a).
const deadPaneOutputCrash = "tmux before 3.3 crashes (a NULL dereference in control.c control_write_pending) when a pane " +
	"kept by remain-on-exit dies while a control-mode client that receives pane output (iTerm2's tmux -CC, other " +
	"control-mode tools) is attached to its session; fixed in 3.3. tmux-mcp opens no such client there (waits poll " +
	"instead of following %output)"

// identifyingClientCrash is the known crash of the versions with the
// IdentifyingClientNotified capability (3.2a-3.6b).
const identifyingClientCrash = "tmux before 3.7 crashes (a NULL dereference in control.c control_write) when a session is " +
	"created, closed, renamed or switched, a pane selected or a paste buffer changed while a control-mode client is still " +
	"identifying itself; fixed in 3.7. tmux-mcp holds its own commands back while its own clients identify; the " +
	"control-mode clients of other programs (iTerm2's tmux -CC, another tmux-mcp process) are not held"

// knownCrashes are the known crashes of a version: what may have ended a
// server of that version that died of a signal.
func knownCrashes(caps tmux.Capabilities) []string {
	var out []string
	if caps.DeadPaneOutputCrash {
		out = append(out, deadPaneOutputCrash)
	}
	if caps.IdentifyingClientNotified {
		out = append(out, identifyingClientCrash)
	}
	return out
}

// knownCrashesOf says which known crashes a crashed server's version has:
// the version the journal's last snapshot of that server process recorded,
// else the tmux binary's (an upgrade can leave them apart); nil when the
// version is unknown or has none.
func knownCrashesOf(f *serverFacts) []string {
	v, whose := f.client, "the tmux binary is "+f.client.Raw+" (the server usually runs the same version)"
	if j := f.journal; j != nil && j.hasSnap && j.snap.Version != "" && j.snap.PID == f.pid() {
		if sv, err := tmux.ParseVersion(j.snap.Version); err == nil {
			v, whose = sv, fmt.Sprintf("the journal recorded server PID %d running tmux %s", j.snap.PID, j.snap.Version)
		}
	}
	if v.Raw == "" {
		return nil
	}
	var out []string
	for _, c := range knownCrashes(v.Capabilities()) {
		out = append(out, whose+": "+c)
	}
	return out
}

// knownBad is the warning about the known regressions of a version, with
// the remedies for the binary and for a running server; "" when it has
// none.
func knownBad(caps tmux.Capabilities) (summary, binaryRemedy, serverRemedy string) {
	switch {
	case caps.SpinRegressions:
		return spinRegressions, "use 3.6a until the 3.7 regressions are fixed, or a build with the fixes",
			"restart the server with 3.6a, or a build with the fixes"
	case caps.DeadPaneOutputCrash:
		return deadPaneOutputCrash, "upgrade tmux to 3.3 or later",
			"restart the server with tmux 3.3 or later; until then keep control-mode clients (tmux -CC) away from sessions with remain-on-exit panes"
	}
	return "", "", ""
}

// clientVersion finds the tmux binary and asks its version (tmux -V, which
// contacts no server).
func clientVersion(ctx context.Context, binary string) (path string, v tmux.Version, err error) {
	path, err = exec.LookPath(binary)
	if err != nil {
		return "", tmux.Version{}, fmt.Errorf("diagnostics: tmux binary: %w", err)
	}
	raw, err := supervisor.TmuxVersion(ctx, binary)
	if err != nil {
		return path, tmux.Version{}, err
	}
	v, err = tmux.ParseVersion(raw)
	return path, v, err
}

// checkBinary reports the tmux binary and its version.
func checkBinary(binary, path string, v tmux.Version, err error) Check {
	c := Check{ID: "tmux.binary", Title: "tmux binary"}
	c.fact("binary", binary)
	if path != "" {
		c.fact("path", path)
	}
	if err != nil {
		c.Status, c.Summary = StatusFail, "cannot run the tmux binary: "+err.Error()
		c.Remedy = "install tmux, or point tmux-mcp at it with --tmux-bin"
		return c
	}
	c.fact("version", v.Raw)
	caps := v.Capabilities()
	bad, remedy, _ := knownBad(caps)
	switch {
	case !caps.ClientFlags || !caps.Foreground: // before 3.2
		c.Status, c.Summary = StatusWarn, v.Raw+" is older than 3.2: no -N (a client may start a server by accident), no control-mode client flags, no tmux -D"
		c.Remedy = "upgrade tmux to 3.2 or later (tmux-mcp needs it for control mode)"
	case bad != "":
		c.Status, c.Summary = StatusWarn, v.Raw+": "+bad
		c.Remedy = remedy
	default:
		c.Status, c.Summary = StatusOK, v.Raw
	}
	if !caps.ControlCapture {
		c.fact("control-mode capture-pane -p", "leaks the capture inside the server before 3.6 (tmux #4590); tmux-mcp avoids it")
	}
	return c
}

// checkServerVersion compares the running server with the binary, and
// looks for a server binary deleted by an upgrade.
func checkServerVersion(f *serverFacts) Check {
	c := Check{ID: "server.version", Title: "Server version"}
	p := f.mainProc()
	if f.ans == nil && p == nil {
		c.Status, c.Summary = StatusSkipped, "skipped: no live server"
		return c
	}
	if f.client.Raw != "" {
		c.fact("client", f.client.Raw)
	}
	if f.ans != nil {
		c.fact("server", f.ans.Version)
	}
	if p != nil && p.Exe != "" {
		exe := p.Exe
		if p.ExeDeleted {
			exe += " (deleted)"
		}
		c.fact("server binary", exe)
	}
	c.Status, c.Summary = StatusOK, "the server and the tmux binary match"
	switch {
	case f.probeErr != nil && errors.Is(f.probeErr, tmux.ErrVersionMismatch):
		c.Status = StatusFail
		c.Summary = "the tmux binary cannot talk to the running server: " + firstLine(f.probeErr.Error())
	case f.ans != nil && f.client.Raw != "" && f.ans.Version != strings.TrimPrefix(f.client.Raw, "tmux "):
		c.Status = StatusWarn
		c.Summary = fmt.Sprintf("the server runs %s but the tmux binary is %s: commands may fail or hang (an upgrade without a server restart)",
			f.ans.Version, f.client.Raw)
	case p != nil && p.ExeDeleted:
		c.Status = StatusWarn
		c.Summary = "the server's binary was deleted or replaced since it started (an upgrade?)"
	case f.ans == nil:
		c.Status, c.Summary = StatusSkipped, "skipped: the server did not answer"
		return c
	}
	if c.Status != StatusOK && p != nil {
		c.Remedy = "talk to the server with its own binary, or save your work and restart the server with the new one"
		c.Commands = []string{fmt.Sprintf("/proc/%d/exe %s ls", p.PID, strings.Join(shellArgs(f.sock.Args()), " "))}
	}
	return c
}

// checkServerKnownBad warns about server versions with known regressions,
// and about what the control-mode clients of other programs can do to it:
// crash a server before 3.7 (and 3.2a in one more way), and leak every
// capture they poll before 3.6.
func checkServerKnownBad(f *serverFacts) Check {
	c := Check{ID: "server.known_bad", Title: "Known-bad tmux versions"}
	if f.ans == nil {
		c.Status, c.Summary = StatusSkipped, "skipped: the server did not answer"
		return c
	}
	v, err := tmux.ParseVersion(f.ans.Version)
	if err != nil {
		c.Status, c.Summary = StatusSkipped, "skipped: cannot parse server version "+strconv.Quote(f.ans.Version)
		return c
	}
	c.fact("server version", v.Raw)
	var foreign []string
	for _, cl := range f.ans.Clients {
		if cl.Control && !isTmuxMCPClient(cl.PID) {
			foreign = append(foreign, strconv.Itoa(cl.PID))
		}
	}
	c.fact("control-mode clients of other programs", len(foreign))
	caps := v.Capabilities()
	bad, _, remedy := knownBad(caps)
	var warns, remedies []string
	if bad != "" {
		warns, remedies = append(warns, bad), append(remedies, remedy)
	}
	if len(foreign) > 0 {
		// What other programs' control-mode clients can do to this server.
		before := len(warns)
		if caps.IdentifyingClientNotified {
			warns = append(warns, identifyingClientCrash)
			remedies = append(remedies, "upgrade tmux to 3.7 or later, or close those clients while tmux-mcp runs (or create, rename and kill sessions only through tmux-mcp while they attach)")
		}
		if !caps.ControlCapture {
			warns = append(warns, "tmux "+v.Raw+" leaks every capture-pane -p sent over control mode (fixed in 3.6, tmux #4590): if those clients poll captures, the server's memory grows without bound")
			remedies = append(remedies, "upgrade tmux to 3.6 or later, or make those programs capture over exec (or capture-pane -b, show-buffer, delete-buffer)")
		}
		if len(warns) > before {
			warns = append(warns, fmt.Sprintf("%d control-mode client(s) of other programs are attached (PIDs %s)",
				len(foreign), strings.Join(foreign, ", ")))
			c.Commands = []string{"ps -o pid,ppid,args -p " + strings.Join(foreign, ",")}
		}
	}
	if len(warns) == 0 {
		c.Status, c.Summary = StatusOK, "no known regression in "+v.Raw+" for how this server is used"
		return c
	}
	c.Status, c.Summary, c.Remedy = StatusWarn, strings.Join(warns, "; "), strings.Join(remedies, "; ")
	return c
}

// isTmuxMCPClient reports whether a control-mode client was started by a
// tmux-mcp process (which captures without the leak on old versions).
func isTmuxMCPClient(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			ppid, _ := strconv.Atoi(strings.TrimSpace(v))
			return ppid == os.Getpid() || comm(ppid) == "tmux-mcp"
		}
	}
	return false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// shellArgs quotes each argument for a shell.
func shellArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellquote.Quote(a)
	}
	return out
}
