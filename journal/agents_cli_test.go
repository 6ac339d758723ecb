package journal

import (
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent/agentstub"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestAgentsComeBack holds a conversation of two turns with the real
// Claude Code and Codex CLI (against the model stub) in a pane tmux-mcp
// created, then ends the tmux server:
//   - crash: SIGKILL; the supervisor restarts the server and the journal
//     restores it with ResumeAgents;
//   - off: the same without ResumeAgents;
//   - reboot: tmux-mcp (supervisor and journal) and then tmux are gone;
//     a new supervisor on the same journal file starts a server and
//     restores it with ResumeAgents;
//   - on demand: the same, but the new tmux-mcp restores nothing by
//     itself; RestoreSnapshot with ResumeAgents does it.
//
// Resumed, each CLI runs again in its restored pane and the stub's next
// request carries both earlier turns (resumed, not restarted); off, the
// restored pane is a shell and nothing talks to the model.
func TestAgentsComeBack(t *testing.T) {
	for _, name := range []string{agentstub.Claude, agentstub.Codex} {
		for _, mode := range []string{"crash", "off", "reboot", "on demand"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				agentComesBack(t, name, mode)
			})
		}
	}
}

func agentComesBack(t *testing.T, name, mode string) {
	r := startAgent(t, name, &Options{ResumeAgents: mode == "crash"}, death.RestartPolicy{})
	exe, stub, l, ts, j, sup, rec, srv, pane, path := r.exe, r.stub, r.l, r.ts, r.j, r.sup, r.rec, r.srv, r.pane, r.path
	p := agentstub.Attach(t, ts, "=agent:0.0")
	turns := []string{"first prompt alpha", "second prompt beta"}
	for i, prompt := range turns {
		p.Turn(stub, name, prompt, i+1)
	}
	if _, err := j.TakeSnapshot(testCtx(t), srv); err != nil {
		t.Fatal(err)
	}
	flush(t, j)
	snap, err := j.Snapshot(srv.Socket(), 0)
	if err != nil {
		t.Fatal(err)
	}
	a := snapPane(t, snap, pane).Agent
	if a == nil || a.CLI != name || a.Conversation == "" || a.Dir != l.Dir || len(a.Resume) == 0 {
		t.Fatalf("the journal's record of the agent = %+v, want %s, its conversation, in %s", a, name, l.Dir)
	}
	if rs, err := j.AgentReturns(srv.Socket()); err != nil || rs[pane].Resumed != (mode == "crash") || rs[pane].Conversation != a.Conversation {
		t.Errorf("before the death, AgentReturns = %+v, %v; want %s's conversation %s, resumed: %v", rs, err, name, a.Conversation, mode == "crash")
	}

	pid := srv.Health().PID
	switch mode {
	case "crash", "off":
		restores := rec.count(supervisor.EventRestored)
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // the server tmuxtest started and tracks
		tmuxtest.WaitFor(t, 30*time.Second, "the restore", func() bool { return rec.count(supervisor.EventRestored) > restores })
		restored := tmux.PaneID(strings.TrimSpace(ts.MustTmux("display-message", "-p", "-t", "=agent:0.0", "#{pane_id}")))
		if rs, err := j.AgentReturns(srv.Socket()); err != nil || rs[restored].CameBack != (mode == "crash") {
			t.Errorf("after the restore, AgentReturns = %+v, %v; want pane %s's %s came back: %v", rs, err, restored, name, mode == "crash")
		}
	case "reboot", "on demand":
		r.stopWatch()
		if err := sup.Close(); err != nil {
			t.Fatal(err)
		}
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // the server tmuxtest started and tracks
		tmuxtest.WaitFor(t, 10*time.Second, "the server to be gone", func() bool { _, err := ts.Tmux("list-sessions"); return err != nil })
		j2, _ := mustOpen(t, path, &Options{ResumeAgents: mode == "reboot"})
		cfg := supervisor.Config{}
		if mode == "reboot" {
			cfg.Restorer = j2
		}
		sup2 := newSup(t, ts, cfg)
		srv2, err := sup2.Default(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if mode == "on demand" {
			res, err := j2.RestoreSnapshot(testCtx(t), srv2, RestoreRequest{ResumeAgents: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Agents) != 1 || !res.Agents[0].Resumed || res.Agents[0].Conversation != a.Conversation {
				t.Errorf("RestoreSnapshot's agents = %+v, want %s resumed on %s", res.Agents, name, a.Conversation)
			}
		}
		tmuxtest.WaitFor(t, 30*time.Second, "the restored session", func() bool { _, err := ts.Tmux("has-session", "-t", "=agent"); return err == nil })
	}
	back := agentstub.Attach(t, ts, "=agent:0.0")
	if mode == "off" {
		back.WaitScreen("the restored pane's shell", 10*time.Second, func(string) bool {
			c, err := ts.Tmux("display-message", "-p", "-t", "=agent:0.0", "#{pane_current_command}")
			return err == nil && strings.TrimSpace(c) != "" && !strings.Contains(c, "claude") && !strings.Contains(c, "codex")
		})
		if tree := back.Tree(); strings.Contains(tree, exe) {
			t.Errorf("without ResumeAgents the CLI started again:\n%s", tree)
		}
		if n := len(stub.Prompts()); n != len(turns) {
			t.Errorf("the stub got %d prompts, want %d: nothing may talk to the model after an unasked restore", n, len(turns))
		}
		return
	}
	back.WaitText(turns[1], 60*time.Second) // the transcript is back on screen
	back.Turn(stub, name, "third prompt gamma", len(turns)+1)
	rs := stub.Requests()
	i := slices.IndexFunc(rs, func(r agentstub.Request) bool { return strings.Contains(r.Body, "third prompt gamma") })
	for _, prompt := range turns {
		if i < 0 || !strings.Contains(rs[i].Body, prompt) {
			t.Errorf("the request after the restore does not carry %q: the conversation was not resumed", prompt)
		}
	}
}

// agentRun is an agent CLI in a pane tmux-mcp created, on a server of a
// supervisor whose journal watches it.
type agentRun struct {
	exe, path string // the CLI; the journal's file
	stub      *agentstub.Stub
	l         agentstub.Launch
	ts        *tmuxtest.Server
	j         *Journal
	sup       *supervisor.Supervisor
	rec       *events
	srv       *supervisor.Server
	pane      tmux.PaneID
	stopWatch func()
}

// startAgent starts the CLI name against a stub in a pane created as
// create_session does: the CLI as the pane's command, in its directory,
// with its environment, recorded in the journal (opened with o), on a
// server supervised with restart policy rp.
func startAgent(t *testing.T, name string, o *Options, rp death.RestartPolicy) *agentRun {
	t.Helper()
	r := &agentRun{exe: agentstub.CLI(t, name), stub: agentstub.Start(t)}
	r.l = r.stub.Launch(t, name, r.exe)
	r.ts = tmuxtest.New(t)
	agentstub.EndWithServer(t, r.ts)
	r.path = filepath.Join(t.TempDir(), "journal.db")
	r.j, _ = mustOpen(t, r.path, o)
	r.sup = newSup(t, r.ts, supervisor.Config{Restorer: r.j, Restart: rp})
	r.rec = record(r.sup)
	r.stopWatch = r.j.Watch(r.sup)
	t.Cleanup(r.stopWatch)
	var err error
	if r.srv, err = r.sup.Default(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	cmd := []string{"new-session", "-d", "-s", "agent", "-x", "120", "-y", "40", "-c", r.l.Dir}
	for _, kv := range r.l.Env {
		cmd = append(cmd, "-e", kv)
	}
	cmd = append(append(cmd, "-P", "-F", "#{pane_id}", "--"), r.l.Argv...)
	out, err := r.srv.Replay(testCtx(t), cmd)
	if err != nil {
		t.Fatal(err)
	}
	r.pane = tmux.PaneID(strings.TrimSpace(string(out)))
	r.j.RecordCreated(r.srv.Socket(), r.pane, r.l.Argv, r.l.Dir, r.l.Env, false)
	return r
}

// snapPane returns pane id of snap.
func snapPane(t *testing.T, snap *Snapshot, id tmux.PaneID) Pane {
	t.Helper()
	for _, s := range snap.Sessions {
		for _, w := range s.Windows {
			for _, p := range w.Panes {
				if p.ID == id {
					return p
				}
			}
		}
	}
	t.Fatalf("no pane %s in snapshot %d", id, snap.Seq)
	return Pane{}
}
