package agent

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v3/process"
)

// Agent teams on servers of their own. When its lead runs outside tmux,
// Claude Code puts the teammates' panes on a private server,
// `tmux -L claude-swarm-<PID>`, PID being the lead's process. Such a
// server is its owner's: tmux-mcp may look at it and drive its panes, but
// it does not start, restart or restore it.

// teamPrefixes maps a socket name prefix to the CLI whose teams use it.
var teamPrefixes = []struct {
	prefix string
	name   Name
}{{"claude-swarm-", "claude"}}

// TeamLead recognises the socket name of an agent team's server: the CLI
// of its lead and the lead's PID.
func TeamLead(socketName string) (Name, int, bool) {
	for _, t := range teamPrefixes {
		rest, ok := strings.CutPrefix(socketName, t.prefix)
		if pid, err := strconv.Atoi(rest); ok && err == nil && pid > 0 && strconv.Itoa(pid) == rest {
			return t.name, pid, true
		}
	}
	return "", 0, false
}

// Processes reads the command lines of pids, in order, leaving out those
// gone meanwhile or not ours to read: what Detect and TerminalClient look
// at.
func Processes(ctx context.Context, pids []int) []Process {
	procs := make([]Process, 0, len(pids))
	for _, pid := range pids {
		args, err := (&process.Process{Pid: int32(pid)}).CmdlineSliceWithContext(ctx)
		if err == nil {
			procs = append(procs, Process{PID: pid, Args: args})
		}
	}
	return procs
}

// TeamOwner says who owns the team server named socketName, for a person
// to read: "claude (PID 4242)" while that process runs the lead's CLI,
// "claude (PID 4242, no longer running)" once it does not, and "" for a
// socket name that is no team's.
func TeamOwner(ctx context.Context, socketName string) string {
	name, pid, ok := TeamLead(socketName)
	if !ok {
		return ""
	}
	if got, _, found := Detect(Processes(ctx, []int{pid})); !found || got != name {
		return fmt.Sprintf("%s (PID %d, no longer running)", name, pid)
	}
	return fmt.Sprintf("%s (PID %d)", name, pid)
}
