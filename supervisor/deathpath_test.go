package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
	"go.uber.org/goleak"
)

func TestKill9DetectedAndRestarted(t *testing.T) {
	for _, execOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("execOnly=%v", execOnly), func(t *testing.T) {
			ts := tmuxtest.New(t)
			sup := newSup(t, ts, Config{ExecOnly: execOnly})
			rec := record(sup)
			srv := mustServer(t, sup)
			mustDo(t, srv, "new-session", "-d", "-s", "work")
			pid := srv.Health().PID
			if pid <= 0 {
				t.Fatalf("health pid = %d", pid)
			}
			killed := time.Now()
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			died := rec.wait(t, 5*time.Second, "server_died", isType(EventServerDied))
			latency := died.Time.Sub(killed)
			t.Logf("death noticed %v after kill -9 (execOnly=%v)", latency, execOnly)
			if got, want := died.Cause, death.CauseKilled; got != want {
				t.Errorf("cause = %q, want %q (%s)", got, want, died.Detail)
			}
			if died.PID != pid {
				t.Errorf("died pid = %d, want %d", died.PID, pid)
			}
			rec.wait(t, 10*time.Second, "restarted", isType(EventRestarted))
			if out := mustDo(t, srv, "display-message", "-p", "#{pid}"); out == fmt.Sprint(pid) {
				t.Errorf("server pid after restart = %s, want a new one", out)
			}
			h := srv.Health()
			if h.State != StateUp || h.Restarts != 1 || h.LastDeathCause != death.CauseKilled {
				t.Errorf("health = %+v, want up, 1 restart, last cause killed", h)
			}
		})
	}
}

func TestCallsFailFastWhileRestarting(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{Restart: death.RestartPolicy{Initial: 2 * time.Second, Max: 2 * time.Second}})
	rec := record(sup)
	srv := mustServer(t, sup)
	syscall.Kill(srv.Health().PID, syscall.SIGKILL)
	rec.wait(t, 5*time.Second, "restarting", isType(EventRestarting))
	start := time.Now()
	_, err := srv.do(testCtx(t), "list-sessions")
	if !errors.Is(err, ErrRestarting) {
		t.Fatalf("got %v, want ErrRestarting", err)
	}
	if time.Since(start) > 100*time.Millisecond {
		t.Errorf("call took %v, want it to fail fast", time.Since(start))
	}
	if !strings.Contains(err.Error(), "tmux server restarting (attempt 1/5), retry in") {
		t.Errorf("message = %q", err)
	}
	// Asking the supervisor for the server fails fast too, and never starts
	// a second server beside the recovery.
	for _, lookup := range []func(context.Context, tmux.Socket) (*Server, error){sup.Server, sup.Existing} {
		if _, err := lookup(testCtx(t), tmux.Socket{Path: ts.Socket}); !errors.Is(err, ErrRestarting) {
			t.Errorf("lookup while restarting: got %v, want ErrRestarting", err)
		}
	}
	if n := rec.count(isType(EventServerStarted)); n != 1 {
		t.Errorf("servers started = %d, want 1 (no second server during the restart)", n)
	}
}

func TestSocketDeletedRecreatedBySIGUSR1(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("keep")
	ts.MustTmux("new-window", "-d", "-t", "=keep:", "-n", "second")
	sup := newSup(t, ts, Config{})
	rec := record(sup)
	srv := mustServer(t, sup)
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	died := rec.wait(t, 5*time.Second, "server_died", isType(EventServerDied))
	if got, want := died.Cause, death.CauseSocketDeleted; got != want {
		t.Fatalf("cause = %q, want %q", got, want)
	}
	rec.wait(t, 5*time.Second, "socket_recreated", isType(EventSocketRecreated))
	if _, err := os.Stat(ts.Socket); err != nil {
		t.Fatalf("socket not back: %v", err)
	}
	if got := mustDo(t, srv, "display-message", "-p", "#{pid}"); got != fmt.Sprint(pid) {
		t.Errorf("server pid = %s, want the original %d (no second server)", got, pid)
	}
	windows, err := srv.ListWindows(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(windows), 2; got != want {
		t.Errorf("windows after recovery = %d, want %d (sessions intact)", got, want)
	}
	if n := rec.count(isType(EventServerStarted)); n != 0 {
		t.Errorf("servers started = %d, want 0", n)
	}
}

// TestSocketDeletedNoticedAtTheNextCall: a call over the control
// connection still works after the socket is deleted, while every other
// client is refused. The first call must bring the socket back, not the
// next probe tick (here an hour away). On tmux 3.6 and later outside
// clients used to wait up to a probe interval (1.26 s measured).
func TestSocketDeletedNoticedAtTheNextCall(t *testing.T) {
	ts := tmuxtest.New(t)
	pid := ts.Start("keep")
	sup := newSup(t, ts, Config{ProbeInterval: time.Hour})
	rec := record(sup)
	srv := mustServer(t, sup)
	mustDo(t, srv, "display-message", "-p", "#{pid}")
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	// Whatever this call answers, it must set the recovery going.
	srv.do(testCtx(t), "display-message", "-p", "#{pid}") //nolint:errcheck
	rec.wait(t, 5*time.Second, "socket_recreated", isType(EventSocketRecreated))
	if got := ts.MustTmux("display-message", "-p", "#{pid}"); got != fmt.Sprint(pid) {
		t.Errorf("outside client reached PID %s, want the original %d", got, pid)
	}
}

func TestLastSessionGoneOnAdoptedServer(t *testing.T) {
	ts := tmuxtest.New(t)
	// exit-empty is on by default for a server tmux starts itself.
	ts.MustTmux("new-session", "-d", "-s", "only", "exec cat")
	ts.PID()
	sup := newSup(t, ts, Config{ExecOnly: true})
	rec := record(sup)
	srv := mustServer(t, sup)
	pane := mustDo(t, srv, "display-message", "-p", "-t", "=only:", "#{pane_id}")
	// The pane's program exits: the last session goes, and so does the server.
	mustDo(t, srv, "send-keys", "-t", pane, "C-d")
	died := rec.wait(t, 5*time.Second, "server_died", isType(EventServerDied))
	if got, want := died.Cause, death.CauseLastSession; got != want {
		t.Errorf("cause = %q, want %q (%s)", got, want, died.Detail)
	}
	if n := rec.count(isType(EventRestarting)); n != 0 {
		t.Errorf("restarting events = %d, want 0: a normal exit is not restarted eagerly", n)
	}
}

func TestSIGSTOPTimesOutThenRestarts(t *testing.T) {
	// The server process tmux-mcp started outlives supervision, and so does
	// the goroutine that waits for its exit status.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/tmux-mcp/tmux-mcp/tmux.(*StartedServer).wait"))
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{CommandTimeout: 300 * time.Millisecond, Restart: death.RestartPolicy{HungAfter: time.Minute}})
	srv := mustServer(t, sup)
	pid := srv.Health().PID
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	t.Cleanup(func() {
		if stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	})
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			_, err := srv.do(context.Background(), "list-sessions")
			if !errors.Is(err, tmux.ErrTimeout) {
				t.Errorf("got %v, want ErrTimeout", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("call returned after %v, want within its 300ms deadline", d)
			}
		}()
	}
	wg.Wait()
	syscall.Kill(pid, syscall.SIGCONT)
	stopped = false
	tmuxtest.WaitFor(t, 5*time.Second, "calls to succeed after SIGCONT", func() bool {
		_, err := srv.do(context.Background(), "list-sessions")
		return err == nil
	})
	if got := srv.Health().PID; got != pid {
		t.Errorf("pid = %d, want %d (a stop shorter than HungAfter must not restart)", got, pid)
	}
	sup.Close()
}

func TestSmallFDLimitWarnsThenRefuses(t *testing.T) {
	ts := tmuxtest.New(t)
	sup := newSup(t, ts, Config{FDLimit: 40})
	rec := record(sup)
	srv := mustServer(t, sup)
	var refused error
	for i := 0; i < 60 && refused == nil; i++ {
		_, err := srv.do(testCtx(t), "new-window", "-d")
		switch {
		case errors.Is(err, ErrResourceExhausted):
			refused = err
		case err != nil:
			t.Fatalf("window %d: %v, want success or ErrResourceExhausted", i, err)
		}
	}
	if refused == nil {
		t.Fatal("60 windows created under an fd limit of 40: never refused")
	}
	t.Logf("refused with: %v", refused)
	if !strings.Contains(refused.Error(), "of 40 file descriptors") {
		t.Errorf("refusal %q does not name the numbers", refused)
	}
	w := rec.wait(t, time.Second, "resource_warning", isType(EventResourceWarning))
	if w.Resource != "fds" || w.Limit != 40 {
		t.Errorf("warning = %+v, want fds of 40", w)
	}
	if r := rec.wait(t, time.Second, "resource_refused", isType(EventResourceRefused)); r.Resource != "fds" || r.Limit != 40 || r.Used == 0 {
		t.Errorf("refusal event = %+v, want fds used of 40", r)
	}
	// Not livelocked: the server still answers.
	mustDo(t, srv, "list-sessions")
}
