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
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// agentIdle is a line each CLI shows with its input box empty.
var agentIdle = map[string]string{
	agentstub.Claude: "? for shortcuts",
	agentstub.Codex:  "Ask Codex to do anything",
}

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
	exe := agentstub.CLI(t, name)
	stub := agentstub.Start(t)
	l := stub.Launch(t, name, exe)
	ts := tmuxtest.New(t)
	agentstub.EndWithServer(t, ts)
	path := filepath.Join(t.TempDir(), "journal.db")
	j, _ := mustOpen(t, path, &Options{ResumeAgents: mode == "crash"})
	sup := newSup(t, ts, supervisor.Config{Restorer: j})
	rec := record(sup)
	stopWatch := j.Watch(sup)
	t.Cleanup(stopWatch)
	srv, err := sup.Default(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	// As create_session does: the CLI as the pane's command, in its
	// directory, with its environment, recorded in the journal.
	cmd := []string{"new-session", "-d", "-s", "agent", "-x", "120", "-y", "40", "-c", l.Dir}
	for _, kv := range l.Env {
		cmd = append(cmd, "-e", kv)
	}
	cmd = append(append(cmd, "-P", "-F", "#{pane_id}", "--"), l.Argv...)
	out, err := srv.Replay(testCtx(t), cmd)
	if err != nil {
		t.Fatal(err)
	}
	pane := tmux.PaneID(strings.TrimSpace(string(out)))
	j.RecordCreated(srv.Socket(), pane, l.Argv, l.Dir, l.Env, false)
	p := agentstub.Attach(t, ts, "=agent:0.0")
	turns := []string{"first prompt alpha", "second prompt beta"}
	for i, prompt := range turns {
		p.WaitText(agentIdle[name], 60*time.Second)
		p.WaitStill("idle", time.Second, 60*time.Second)
		p.Paste(prompt)
		p.WaitText(prompt, 10*time.Second)
		p.Keys("Enter")
		stub.WaitPrompt(t, i+1, 30*time.Second)
		p.WaitText(agentstub.DefaultText(prompt), 30*time.Second)
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

	pid := srv.Health().PID
	switch mode {
	case "crash", "off":
		restores := rec.count(supervisor.EventRestored)
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // the server tmuxtest started and tracks
		tmuxtest.WaitFor(t, 30*time.Second, "the restore", func() bool { return rec.count(supervisor.EventRestored) > restores })
	case "reboot", "on demand":
		stopWatch()
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
	back.WaitText(agentIdle[name], 60*time.Second)
	back.WaitStill("idle", time.Second, 60*time.Second)
	back.Paste("third prompt gamma")
	back.WaitText("third prompt gamma", 10*time.Second)
	back.Keys("Enter")
	stub.WaitPrompt(t, len(turns)+1, 30*time.Second)
	rs := stub.Requests()
	i := slices.IndexFunc(rs, func(r agentstub.Request) bool { return strings.Contains(r.Body, "third prompt gamma") })
	for _, prompt := range turns {
		if i < 0 || !strings.Contains(rs[i].Body, prompt) {
			t.Errorf("the request after the restore does not carry %q: the conversation was not resumed", prompt)
		}
	}
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
