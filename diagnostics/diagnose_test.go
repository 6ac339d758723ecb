package diagnostics

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// Every failing condition is produced for real against an isolated server,
// and the report must name it as the top likely cause.

// TestHealthyServerIsAllOK: a healthy server gets an all-ok report, but
// for the warning about the known regressions of its version where the
// capability table says it has them (SpinRegressions, DeadPaneOutputCrash):
// from the binary's check and the server's, and nothing else.
func TestHealthyServerIsAllOK(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("main")
	wantStatus, wantExit, wantWarned := StatusOK, ExitOK, []string{}
	bad, _, _ := knownBad(serverCaps(t, ts))
	if bad != "" {
		wantStatus, wantExit, wantWarned = StatusWarn, ExitWarnings, []string{"server.known_bad", "tmux.binary"}
	}
	r := diagnose(t, tmux.Socket{Path: ts.Socket})
	if r.Status != wantStatus || r.ExitCode() != wantExit {
		t.Errorf("status = %s (exit %d), want %s (exit %d); report:\n%s", r.Status, r.ExitCode(), wantStatus, wantExit, r.Markdown())
	}
	sr := r.Servers[0]
	if sr.Verdict == nil || sr.Verdict.Cause != "" || sr.Verdict.Confidence != Certain {
		t.Errorf("verdict = %+v, want alive (certain)", sr.Verdict)
	}
	if sr.PID != pid || sr.State != "answering" || sr.Version == "" {
		t.Errorf("server = pid %d, state %q, version %q; want pid %d answering with a version", sr.PID, sr.State, sr.Version, pid)
	}
	if len(r.Causes) != len(wantWarned) || slices.ContainsFunc(r.Causes, func(c LikelyCause) bool { return c.Cause != "known_bad_version" }) {
		t.Errorf("likely causes = %+v, want %d of known_bad_version", r.Causes, len(wantWarned))
	}
	warned := []string{}
	for _, c := range slices.Concat(r.System, sr.Checks) {
		switch {
		case c.Status == StatusWarn && slices.Contains(wantWarned, c.ID):
			warned = append(warned, c.ID)
			if !strings.Contains(c.Summary, bad) {
				t.Errorf("check %s: %q, want the known regressions", c.ID, c.Summary)
			}
		case c.Status != StatusOK && c.Status != StatusSkipped:
			t.Errorf("check %s: %s (%s), want ok", c.ID, c.Status, c.Summary)
		}
	}
	if slices.Sort(warned); !slices.Equal(warned, wantWarned) {
		t.Errorf("checks that warn of known regressions: %q, want %q", warned, wantWarned)
	}
	// Diagnose left the server as it was: one session, no client.
	if out := ts.MustTmux("list-sessions", "-F", "#{session_name}"); out != "main" {
		t.Errorf("sessions after diagnose = %q, want main", out)
	}
}

// TestNoSecretsInTheReport: environment values, pane contents and
// keystrokes never reach the report.
func TestNoSecretsInTheReport(t *testing.T) {
	ts := tmuxtest.New(t)
	// The pane prints one secret and echoes the keys it gets (cat is ready
	// at once, unlike a shell still reading its startup files).
	ts.MustTmux("new-session", "-d", "-s", "main", "-e", "API_TOKEN=env-secret-4711", "printf 'pane-secret-%s\\n' 4711; exec cat")
	ts.MustTmux("send-keys", "-t", "main", "keys-secret-4711", "Enter")
	tmuxtest.WaitFor(t, 10*time.Second, "the pane to show both", func() bool {
		out, _ := ts.Tmux("capture-pane", "-p", "-t", "main")
		return strings.Contains(out, "pane-secret-4711") && strings.Contains(out, "keys-secret-4711")
	})
	r := diagnose(t, tmux.Socket{Path: ts.Socket})
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{string(js), r.Markdown()} {
		for _, secret := range []string{"env-secret", "pane-secret", "keys-secret", "API_TOKEN"} {
			if strings.Contains(out, secret) {
				t.Errorf("the report holds %q", secret)
			}
		}
	}
}

// TestKilledServer: kill -9 a server tmux-mcp journaled. Its zombie,
// identified by the PID and start time in the journal, keeps the signal.
func TestKilledServer(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("main")
	j := newMemJournal()
	j.record(t, ts)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "server to die", func() bool { return !tmuxtest.Alive(pid) })
	r := diagnose(t, tmux.Socket{Path: ts.Socket}, func(o *Options) { o.Journal = j })
	top := wantTop(t, r, string(death.CauseKilled), ExitFailures)
	if top.Confidence != Certain {
		t.Errorf("confidence = %s, want certain (zombie tied by the journal's PID and start time)", top.Confidence)
	}
	sr := r.Servers[0]
	if sr.State != "dead" || sr.PID != pid {
		t.Errorf("server = %q pid %d, want dead pid %d", sr.State, sr.PID, pid)
	}
	if !strings.Contains(sr.Verdict.Detail, "signal 9") {
		t.Errorf("verdict detail = %q, want signal 9", sr.Verdict.Detail)
	}
	if c := check(t, sr, "socket.file"); !slices.Contains(factStrings(c), "no server running on "+ts.Socket) {
		t.Errorf("socket.file evidence %v: want what tmux prints, \"no server running on %s\"", c.Evidence, ts.Socket)
	}
	if !hasTimeline(r, "journal", "adopted") || !hasTimeline(r, "process", "was killed by signal 9") {
		t.Errorf("timeline %+v: want the journal's adoption and the process's end", r.Timeline)
	}
}

// TestCrashedServer: tmux 3.3a dies of SIGSEGV on a bad select-layout
// argument (which the wire refuses to send; tmuxtest does not). Versions
// that answer it with an error get the signal sent instead. The zombie
// says so; once it is reaped, the kernel log does (for a real fault only),
// for the PID the journal recorded.
func TestCrashedServer(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("main")
	caps := serverCaps(t, ts)
	j := newMemJournal()
	j.record(t, ts)
	if _, err := ts.Tmux("select-layout", "x"); err != nil && strings.Contains(err.Error(), "layout") {
		// This version survives it.
		if err := syscall.Kill(pid, syscall.SIGSEGV); err != nil {
			t.Fatal(err)
		}
	}
	tmuxtest.WaitFor(t, 10*time.Second, "server to crash", func() bool {
		st, err := proc.ReadProcStat(pid)
		return err == nil && st.State == 'Z' || !tmuxtest.Alive(pid)
	})
	if ws, ok := proc.ZombieStatus(pid, 0); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
		t.Skipf("the server did not die of SIGSEGV (wait status %#x, zombie %v)", uint32(ws), ok)
	}
	withJournal := func(o *Options) { o.Journal = j }
	r := diagnose(t, tmux.Socket{Path: ts.Socket}, withJournal)
	top := wantTop(t, r, string(death.CauseCrashed), ExitFailures)
	if top.Confidence != Certain || !strings.Contains(r.Servers[0].Verdict.Detail, "signal 11") {
		t.Errorf("from the zombie: %s %+v, want crashed by signal 11 (certain)", top.Confidence, r.Servers[0].Verdict)
	}
	// The version's known crashes are named among the reasons.
	for _, k := range []struct {
		crash string
		has   bool
	}{{identifyingClientCrash, caps.IdentifyingClientNotified}, {deadPaneOutputCrash, caps.DeadPaneOutputCrash}} {
		named := slices.ContainsFunc(top.For, func(s string) bool { return strings.HasSuffix(s, k.crash) })
		if got, want := named, k.has; got != want {
			t.Errorf("known crash %.40q named %v, want %v (the version has it: %v); for: %q", k.crash, got, want, k.has, top.For)
		}
	}

	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatalf("reap server %d (this process is its subreaper): %v", pid, err)
	}
	recs, err := readKernelLog(Machine{}.withDefaults())
	if err != nil {
		t.Skipf("kernel log not readable here: %v", err)
	}
	// This server's record: with pid_max 32768 the log may also hold an
	// older crash under the same PID, and the kernel rate-limits its
	// segfault messages, so this one may be missing when that one is not.
	if _, ok := kernelRecordOf(recs, pid, j.snaps[ts.Socket].Started); !ok {
		t.Skip("the kernel did not log this segfault (debug.exception-trace off, or rate-limited)")
	}
	r = diagnose(t, tmux.Socket{Path: ts.Socket}, withJournal)
	top = wantTop(t, r, string(death.CauseCrashed), ExitFailures)
	if v := r.Servers[0].Verdict; top.Confidence != Certain || !strings.Contains(v.Basis, "kernel logged") {
		t.Errorf("from the kernel log: %s %+v, want crashed (certain) by the kernel's record", top.Confidence, v)
	}
	if !hasTimeline(r, "kernel", "segfault") {
		t.Errorf("timeline %+v: want the kernel's record", r.Timeline)
	}
}

// TestExitedNormally: the last pane's command exits, exit-empty (on by
// default) ends the server with status 0.
func TestExitedNormally(t *testing.T) {
	ts := tmuxtest.New(t)
	ts.MustTmux("new-session", "-d", "-s", "short", "sleep 1")
	j := newMemJournal()
	j.record(t, ts)
	pid := j.snaps[ts.Socket].PID
	tmuxtest.WaitFor(t, 15*time.Second, "server to exit on its own", func() bool { return !tmuxtest.Alive(pid) })
	r := diagnose(t, tmux.Socket{Path: ts.Socket}, func(o *Options) { o.Journal = j })
	top := wantTop(t, r, string(death.CauseLastSession), ExitWarnings)
	if !strings.Contains(r.Servers[0].Verdict.Detail, "exited normally") {
		t.Errorf("verdict detail = %q, want \"exited normally\"", r.Servers[0].Verdict.Detail)
	}
	if top.Confidence != Certain {
		t.Errorf("confidence = %s, want certain", top.Confidence)
	}
}

func TestSocketDeletedWhileServerRuns(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("keep")
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	r := diagnose(t, tmux.Socket{Path: ts.Socket})
	top := wantTop(t, r, string(death.CauseSocketDeleted), ExitFailures)
	if top.Confidence != Certain {
		t.Errorf("confidence = %s, want certain", top.Confidence)
	}
	usr1 := "kill -USR1 " + strconv.Itoa(pid)
	if !containsStep(top.NextSteps, usr1) || !containsStep(r.NextSteps, usr1) {
		t.Errorf("next steps %q, want %q", top.NextSteps, usr1)
	}
	for _, s := range r.NextSteps {
		if strings.Contains(s, "new-session") {
			t.Errorf("next step %q: never new-session while the server lives", s)
		}
	}
	// Diagnose neither started a server nor made a socket.
	if _, err := os.Stat(ts.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after diagnose: %v, want still missing", err)
	}
	if got := proc.ListenerPIDs(ts.Socket); !slices.Equal(got, []int{pid}) {
		t.Errorf("listeners after diagnose = %v, want only %d", got, pid)
	}
	// The remedy works.
	syscall.Kill(pid, syscall.SIGUSR1)
	tmuxtest.WaitFor(t, 5*time.Second, "socket recreated by SIGUSR1", func() bool { return ts.PID() == pid })
}

// TestTwoServersClaimOnePath: the socket of a live server is deleted and
// a second server is started on the path (what tmux-mcp never does): the
// first is orphaned with its sessions.
func TestTwoServersClaimOnePath(t *testing.T) {
	ts := tmuxtest.New(t)
	first := ts.Start("old")
	t.Cleanup(func() { syscall.Kill(first, syscall.SIGKILL) })
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	second := ts.Start("new")
	r := diagnose(t, tmux.Socket{Path: ts.Socket})
	top := wantTop(t, r, string(death.CauseSocketDeleted), ExitFailures)
	if top.Confidence != Certain || !containsStep(top.NextSteps, "kill -USR1 "+strconv.Itoa(first)) {
		t.Errorf("top cause = %+v, want certain with kill -USR1 %d", top, first)
	}
	sr := r.Servers[0]
	if sr.PID != second || sr.Verdict.Cause != "" {
		t.Errorf("server = pid %d, verdict %+v; want PID %d answering", sr.PID, sr.Verdict, second)
	}
	if c := check(t, sr, "server.process"); c.Status != StatusFail || !strings.Contains(c.Summary, "2 servers claim this path") {
		t.Errorf("server.process = %s %q, want fail naming both servers", c.Status, c.Summary)
	}
}

// TestUnsafeSocketDirectory: a -L server in a private TMUX_TMPDIR whose
// tmux-UID directory is opened to everyone; tmux refuses to use it.
func TestUnsafeSocketDirectory(t *testing.T) {
	tmp, err := os.MkdirTemp("", "dgp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMUX_TMPDIR", tmp)
	sock := tmux.Socket{Name: "perm"}
	pid := startNamed(t, sock)
	dir := filepath.Dir(sock.ResolvedPath())
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	r := diagnose(t, sock)
	top := wantTop(t, r, string(death.CausePermission), ExitFailures)
	if top.Confidence != Certain {
		t.Errorf("confidence = %s, want certain (tmux said so)", top.Confidence)
	}
	if c := check(t, r.Servers[0], "socket.dir"); c.Status != StatusFail || !containsStep(c.Commands, "chmod 700 "+dir) {
		t.Errorf("socket.dir = %s %q %q, want fail with chmod 700 %s", c.Status, c.Summary, c.Commands, dir)
	}
	if !proc.PIDAlive(pid, 0) {
		t.Error("the server died; it should be untouched by a directory mode")
	}
}

// startNamed starts a -L server (tmux's own socket directory rules apply)
// and arranges for it to be killed.
func startNamed(t *testing.T, sock tmux.Socket) int {
	t.Helper()
	e := &tmux.Exec{Socket: sock, Config: "/dev/null"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.Run(ctx, "new-session", "-d", "-s", "p"); err != nil {
		t.Fatal(err)
	}
	out, err := e.Run(ctx, "display-message", "-p", "#{pid}")
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

func TestStoppedServerIsHung(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("main")
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	tmuxtest.WaitFor(t, 5*time.Second, "server to stop", func() bool {
		st, err := proc.ReadProcStat(pid)
		return err == nil && st.State == 'T'
	})
	start := time.Now()
	r := diagnose(t, tmux.Socket{Path: ts.Socket}, func(o *Options) { o.ProbeTimeout = 500 * time.Millisecond })
	top := wantTop(t, r, string(death.CauseHung), ExitFailures)
	if top.Confidence != Certain {
		t.Errorf("confidence = %s, want certain (state T)", top.Confidence)
	}
	if !containsStep(top.NextSteps, "kill -CONT "+strconv.Itoa(pid)) {
		t.Errorf("next steps %q, want kill -CONT %d", top.NextSteps, pid)
	}
	// The probe's deadline held: diagnose did not hang with the server.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("diagnose of a stopped server took %v", d)
	}
}

// TestMissingSocketStartsNoServer: diagnose on sockets that do not exist,
// by path and by name, creates nothing: no server, no socket, not even
// tmux's socket directory.
func TestMissingSocketStartsNoServer(t *testing.T) {
	tmp, err := os.MkdirTemp("", "dgm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMUX_TMPDIR", tmp)
	byPath := tmux.Socket{Path: filepath.Join(tmp, "nothing", "s")}
	byName := tmux.Socket{Name: "nothing"}
	r := diagnose(t, byPath, func(o *Options) { o.Sockets = append(o.Sockets, byName) })
	for _, s := range []tmux.Socket{byPath, byName} {
		p := s.ResolvedPath()
		if _, err := os.Stat(filepath.Dir(p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: directory %s after diagnose: %v, want none", s, filepath.Dir(p), err)
		}
		if got := proc.ListenerPIDs(p); len(got) != 0 {
			t.Errorf("%s: servers listening after diagnose: %v, want none", s, got)
		}
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 0 {
		t.Errorf("TMUX_TMPDIR holds %d entries after diagnose, want none", len(entries))
	}
	for _, sr := range r.Servers {
		if sr.State != "not running" || sr.Verdict != nil {
			t.Errorf("%s: state %q, verdict %+v; want not running, no verdict", sr.Socket, sr.State, sr.Verdict)
		}
	}
	if r.ExitCode() > ExitWarnings {
		t.Errorf("exit code = %d, want 0 or 1; report:\n%s", r.ExitCode(), r.Markdown())
	}
}

func factStrings(c Check) []string {
	var out []string
	for _, f := range c.Evidence {
		if s, ok := f.Value.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func hasTimeline(r *Report, source, text string) bool {
	for _, e := range r.Timeline {
		if e.Source == source && strings.Contains(e.What, text) {
			return true
		}
	}
	return false
}
