package diagnostics

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
)

// causeTitles names every cause a report can rank: the supervisor's
// causes, with the same names, and the hazards that checks find.
var causeTitles = map[string]string{
	string(death.CauseKilled):        "Killed by a signal",
	string(death.CauseCrashed):       "Crashed",
	string(death.CauseLastSession):   "Exited normally: its last session closed",
	string(death.CauseSocketDeleted): "Orphaned: the socket file was deleted or replaced while the server runs",
	string(death.CauseFDLivelock):    "File-descriptor exhaustion: livelocked at its fd limit",
	string(death.CauseHung):          "Hung: alive but not answering",
	string(death.CauseVersionSkew):   "The tmux binary and the server differ in version",
	string(death.CausePermission):    "Unsafe permissions on the socket or its directory",
	string(death.CauseKillServer):    "Killed on request (kill-server)",
	string(death.CauseUnknown):       "Gone without a trace",
	"pty_exhaustion":                 "Pseudo-terminal exhaustion",
	"fd_exhaustion":                  "System-wide file-handle exhaustion",
	"tmp_cleaner":                    "A temporary-file cleaner may delete the socket",
	"memory":                         "Memory: scrollback history",
	"known_bad_version":              "A tmux version with known bugs",
	"tmux_missing":                   "No usable tmux binary",
	"tmux_mcp_fds":                   "tmux-mcp near its own fd limit",
	"journal_unreadable":             "The journal cannot be read",
}

// checkCauses is what a warning or failure of a check could lead to, for
// checks that do not say so themselves (Check.cause).
var checkCauses = map[string]string{
	"socket.dir":             string(death.CausePermission),
	"socket.cleaner":         "tmp_cleaner",
	"server.version":         string(death.CauseVersionSkew),
	"server.known_bad":       "known_bad_version",
	"server.options":         string(death.CauseLastSession),
	"server.history":         "memory",
	"tmux.binary":            "known_bad_version",
	"system.ptys":            "pty_exhaustion",
	"system.files":           "fd_exhaustion",
	"macos.launchd_fd_limit": string(death.CauseFDLivelock),
	"tmux_mcp.self":          "tmux_mcp_fds",
	"journal":                "journal_unreadable",
}

func hazardOf(c Check) string {
	if c.cause == causeEvidence {
		return ""
	}
	if c.cause != "" {
		return c.cause
	}
	if c.ID == "tmux.binary" && c.Status == StatusFail {
		return "tmux_missing"
	}
	return checkCauses[c.ID]
}

func title(cause string) string {
	if t, ok := causeTitles[cause]; ok {
		return t
	}
	return cause
}

// Scores: what happened (a verdict) ranks above what could happen (a
// hazard); then by severity, then by confidence.
func score(verdict bool, st Status, c Confidence, prior int) int {
	s := st.severity()*100 + c.score()*10 + prior
	if verdict {
		s += 1000
	}
	return s
}

// rankCauses ranks the likely causes: each server's verdict first (for an
// unknown one, the candidates that fit what is left, in the order they
// happen in practice), then what the journal recorded, then the hazards
// found by checks.
func rankCauses(servers []ServerReport, facts []*serverFacts, system []Check) []LikelyCause {
	var out []LikelyCause
	for i, sr := range servers {
		f := facts[i]
		if v := sr.Verdict; v != nil && v.Cause != "" {
			if v.Cause == string(death.CauseUnknown) {
				out = append(out, unknownCandidates(sr, f)...)
			} else {
				lc := LikelyCause{Cause: v.Cause, Socket: sr.Socket, Title: title(v.Cause), Confidence: v.Confidence,
					For: []string{v.Detail, v.Basis}, Against: against(v, f), NextSteps: nextSteps(v.Cause, f)}
				if v.Cause == string(death.CauseCrashed) {
					lc.For = append(lc.For, knownCrashesOf(f)...)
				}
				lc.score = score(true, verdictStatus(v), v.Confidence, 0)
				out = append(out, lc)
			}
		}
		for _, o := range f.orphans() {
			lc := LikelyCause{Cause: string(death.CauseSocketDeleted), Socket: sr.Socket,
				Title: title(string(death.CauseSocketDeleted)), Confidence: Certain,
				For: []string{fmt.Sprintf("server PID %d also listens on this path (/proc/net/unix), but the socket file leads to PID %d: "+
					"PID %d lost its socket (deleted, then a second server was started on the path) and keeps its sessions unreachable",
					o.PID, f.ans.PID, o.PID)},
				Against: []string{}, NextSteps: nextSteps(string(death.CauseSocketDeleted), f)}
			lc.score = score(true, StatusFail, Certain, 0)
			out = append(out, lc)
		}
		out = append(out, recordedDeaths(sr, f)...)
		for _, c := range sr.Checks {
			if lc, ok := hazard(c, sr.Socket); ok {
				if sr.State == "answering" {
					lc.Against = append(lc.Against, "the server is alive and answering: this is a risk, not what happened")
				}
				out = append(out, lc)
			}
		}
	}
	for _, c := range system {
		if lc, ok := hazard(c, ""); ok {
			out = append(out, lc)
		}
	}
	return merge(out)
}

// hazard turns a warning or failure into a candidate cause.
func hazard(c Check, socket string) (LikelyCause, bool) {
	cause := hazardOf(c)
	if cause == "" || (c.Status != StatusWarn && c.Status != StatusFail) {
		return LikelyCause{}, false
	}
	lc := LikelyCause{Cause: cause, Socket: socket, Title: title(cause), Confidence: Possible,
		For: []string{c.Title + ": " + c.Summary}, Against: []string{}, NextSteps: c.Commands}
	lc.score = score(false, c.Status, Possible, 0)
	return lc, true
}

// merge joins candidates with the same cause and socket, keeping the best
// score and every reason, and sorts them best first.
func merge(in []LikelyCause) []LikelyCause {
	var out []LikelyCause
	index := map[string]int{}
	for _, lc := range in {
		key := lc.Cause + "\x00" + lc.Socket
		i, ok := index[key]
		if !ok {
			index[key] = len(out)
			out = append(out, lc)
			continue
		}
		m := &out[i]
		if lc.score > m.score {
			m.score, m.Confidence, m.Title = lc.score, lc.Confidence, lc.Title
		}
		m.For = appendNew(m.For, lc.For...)
		m.Against = appendNew(m.Against, lc.Against...)
		m.NextSteps = appendNew(m.NextSteps, lc.NextSteps...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	for i := range out {
		if out[i].Against == nil {
			out[i].Against = []string{}
		}
	}
	return out
}

func appendNew(dst []string, src ...string) []string {
	for _, s := range src {
		if s != "" && !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}

// recordedDeaths are the deaths the journal recorded in the window: what
// happened to a server that the supervisor has since restarted.
func recordedDeaths(sr ServerReport, f *serverFacts) []LikelyCause {
	if f.journal == nil {
		return nil
	}
	var out []LikelyCause
	for _, e := range f.journal.events {
		if e.Type != supervisor.EventServerDied || e.Cause == "" {
			continue
		}
		lc := LikelyCause{Cause: string(e.Cause), Socket: sr.Socket, Title: title(string(e.Cause)), Confidence: Likely,
			For:     []string{fmt.Sprintf("tmux-mcp's supervisor recorded it at %s: %s", e.Time.UTC().Format(time.RFC3339), e.Detail)},
			Against: []string{}, NextSteps: nextSteps(string(e.Cause), f)}
		lc.score = score(true, StatusWarn, Likely, 0)
		out = append(out, lc)
	}
	return out
}

// unknownCandidates ranks what could have ended a server that left only a
// stale socket, most common first (tmux-failure-modes.md section 1.13).
func unknownCandidates(sr ServerReport, f *serverFacts) []LikelyCause {
	noTrace := "no exit status, kernel record or journal entry survived to confirm it"
	cands := []LikelyCause{
		{Cause: string(death.CauseLastSession),
			For: []string{"the most common end of a server: tmux exits when its last session closes (exit-empty is on by default), and a session closes when the command in its last pane exits",
				"tmux never removes its socket, so any exit leaves exactly this stale socket"},
			Against: []string{noTrace}},
		{Cause: string(death.CauseKilled),
			For:     []string{"SIGKILL or SIGTERM from outside (the OOM killer, a systemd unit stopping its cgroup, an app's orphan reaper, a person) leaves the same stale socket"},
			Against: []string{noTrace}},
		{Cause: string(death.CauseCrashed),
			For:     []string{"a crash (a signal such as SIGSEGV, or a fatal error such as a failed allocation) leaves the same stale socket"},
			Against: []string{noTrace, "crashes are rare: no crash of tmux 3.0 or later is known to come from capture polling"}},
	}
	cands[2].For = append(cands[2].For, knownCrashesOf(f)...)
	for i := range cands {
		c := &cands[i]
		c.Socket, c.Title, c.Confidence = sr.Socket, title(c.Cause), Possible
		c.NextSteps = nextSteps(string(death.CauseUnknown), f)
		c.score = score(true, StatusWarn, Possible, len(cands)-i)
	}
	return cands
}

// against lists what speaks against a verdict, or what it cannot tell.
func against(v *Verdict, f *serverFacts) []string {
	out := []string{}
	if z := f.zombie; z != nil && !z.Exact {
		out = append(out, "the zombie was tied to this socket by timing alone")
	}
	switch death.Cause(v.Cause) {
	case death.CauseKilled:
		out = append(out, "a signal does not say who sent it: the OOM killer, a systemd unit stop, an orphan reaper or a person (see the next steps)")
	case death.CauseLastSession:
		out = append(out, "kill-server and SIGTERM from outside also end a server with status 0")
	case death.CauseHung:
		if p := f.mainProc(); p == nil || !stopped(p.Stat.State) {
			out = append(out, "one probe timed out; a machine under heavy load can delay an answer that long")
		}
	case death.CauseFDLivelock:
		out = append(out, "one probe timed out; high fd use alone does not prove the livelock")
	}
	return out
}

// nextSteps are the exact commands for a cause, with this server's PID and
// socket filled in.
func nextSteps(cause string, f *serverFacts) []string {
	args := strings.Join(shellArgs(f.sock.Args()), " ")
	pid := strconv.Itoa(f.pid())
	linuxKernel := []string{
		"dmesg -T | grep -iE 'tmux|killed process|out of memory|segfault'",
		"journalctl -k --since -1d | grep -iE 'tmux|oom'",
	}
	if f.goos == "darwin" {
		linuxKernel = []string{"log show --predicate 'process == \"tmux\"' --last 1d",
			"ls ~/Library/Logs/DiagnosticReports | grep -i tmux"}
	}
	restart := "tmux " + args + " new-session -d   # safe now: no process listens on the path"
	switch death.Cause(cause) {
	case death.CauseKilled:
		return append(linuxKernel, "systemctl --user status   # a unit that stops its cgroup kills tmux started inside it", restart)
	case death.CauseCrashed:
		return append(append([]string{"coredumpctl list tmux"}, linuxKernel...), restart)
	case death.CauseLastSession:
		return []string{restart,
			"echo 'set -g exit-empty off' >> ~/.tmux.conf   # or let tmux-mcp start the server (tmux -D keeps it up without sessions)",
			"echo 'set -g remain-on-exit on' >> ~/.tmux.conf   # keep a pane (and its exit status) when its command exits"}
	case death.CauseSocketDeleted:
		var out []string
		if f.dirErr != nil {
			out = append(out, "mkdir -p -m 700 "+shellquote.Quote(filepath.Dir(f.path)))
		}
		for _, o := range f.orphans() {
			pid = strconv.Itoa(o.PID)
		}
		return append(out, "kill -USR1 "+pid+"   # the server creates its socket again: do this before anything that could start a server",
			"tmux "+args+" ls")
	case death.CauseFDLivelock:
		return []string{"kill -TERM " + pid + "; sleep 1; kill -KILL " + pid + "   # there is no way back in: the sessions are lost",
			"ulimit -n 65536; tmux " + args + " new-session -d   # start the next server with a high fd limit"}
	case death.CauseHung:
		if p := f.mainProc(); p != nil && stopped(p.Stat.State) {
			return []string{"kill -CONT " + pid, "tmux " + args + " ls"}
		}
		return []string{"cat /proc/" + pid + "/wchan; echo; cat /proc/" + pid + "/status | grep -E 'State|Threads'",
			"kill -TERM " + pid + "   # if it never answers again; SIGKILL if it ignores SIGTERM"}
	case death.CausePermission:
		dir := filepath.Dir(f.path)
		return []string{"ls -ld " + shellquote.Quote(dir), "chmod 700 " + shellquote.Quote(dir), "tmux " + args + " ls"}
	case death.CauseVersionSkew:
		return []string{"/proc/" + pid + "/exe " + args + " ls   # talk to the server with its own binary",
			"tmux -V"}
	case death.CauseUnknown:
		return append(linuxKernel, "coredumpctl list tmux", restart)
	}
	return nil
}
