package guard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/agent"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// A pane someone else drives (another agent CLI, or a person at a
// terminal) takes keys only when the caller says it means to: each tool
// that types takes allow_agent and allow_attended, and refuses such a
// pane without them.

// attendedWithin is how recent a key from an attached client must be for
// its pane to count as a person's: a person who typed in the last two
// minutes is still at it, or reading what came back.
const attendedWithin = 2 * time.Minute

// CheckTyping is the check every tool that types into pane pn makes
// before it types: the caller's own pane (CheckTypingSelf), and every
// pane the keys reach (pn, and the panes synchronized with it) that
// someone else drives (CheckDriven) unless allowAgent and allowAttended
// allow it.
func (g Guard) CheckTyping(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, allowAgent, allowAttended bool) error {
	if err := g.CheckTypingSelf(ctx, srv, pn.ID); err != nil {
		return err
	}
	own, err := g.OwnPanesOn(ctx, srv, false)
	if err != nil {
		return err
	}
	reached, err := ReachedPanes(ctx, srv, pn)
	if err != nil {
		return err
	}
	for _, q := range reached {
		if own.Has(q.ID) {
			continue // allowed above; the agent running there is the caller
		}
		if err := g.CheckDriven(ctx, srv, q, allowAgent, allowAttended, ViaSync(pn, q)); err != nil {
			return err
		}
	}
	return nil
}

// ReachedPanes returns the panes that keys typed into pn reach: pn and,
// when pn's synchronize-panes is on, every other pane of its window whose
// option is on too (tmux copies each key to them: window_pane_copy_key,
// and next-3.8 copies pastes too). tmux skips a pane in a mode, with its
// input off or hidden by a zoom; those change without notice, so they
// count here.
func ReachedPanes(ctx context.Context, srv *supervisor.Server, pn tmux.Pane) ([]tmux.Pane, error) {
	synced, err := srv.SynchronizedPanes(ctx, pn.ID)
	if errors.Is(err, tmux.ErrNotFound) {
		return []tmux.Pane{pn}, nil // gone: the typing fails on its own
	}
	if err != nil || !synced[pn.ID] {
		return []tmux.Pane{pn}, err
	}
	out := []tmux.Pane{pn}
	for id, on := range synced {
		if !on || id == pn.ID {
			continue
		}
		q, err := srv.Pane(ctx, id)
		if errors.Is(err, tmux.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// ViaSync says how keys typed into target reach pane q: "" when q is the
// target, else through synchronize-panes.
func ViaSync(target, q tmux.Pane) string {
	if q.ID == target.ID {
		return ""
	}
	return fmt.Sprintf("keys typed into pane %s reach pane %s too (window %s has synchronize-panes on): ", target.ID, q.ID, q.WindowID)
}

// CheckDriven refuses pane pn when another agent CLI runs in it or shows
// behind a terminal client (checkAgentPane), or a person works in it
// (CheckAttended). via, when not empty, says how the keys reach pn.
func (g Guard) CheckDriven(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, allowAgent, allowAttended bool, via string) error {
	if err := g.checkAgentPane(ctx, srv, pn, allowAgent, via); err != nil {
		return err
	}
	return g.CheckAttended(ctx, srv, pn, allowAttended, via)
}

// checkAgentPane refuses pane pn when another agent CLI runs in it
// (unless allowAgent), or when that agent asks a permission question
// (always: answer_permission answers it; nothing types into it by the
// way). A pane whose process tree shows no agent but a terminal client
// (tmux attach, ssh, docker exec, ...; agent.TerminalClient) is read with
// every agent's rules: a permission question on its screen is refused
// always, and a screen that reads as an agent's needs allowAgent as a
// local agent does (the keys reach an agent all the same; the screen only
// adds refusals, it never lets anything through).
func (g Guard) checkAgentPane(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, allowAgent bool, via string) error {
	pa, ok, err := g.AgentIn(ctx, srv, pn)
	if err != nil {
		return err
	}
	switch {
	case !ok && pa.Client != "":
		return checkBehindClient(ctx, srv, pn, pa, allowAgent, via)
	case !ok || pa.Exited:
	case !allowAgent:
		return &Error{Class: "agent_pane",
			Msg: fmt.Sprintf("%spane %s runs %s, an agent CLI (process %d): typing into it needs allow_agent: true (send_keys, paste_text, submit_prompt take it)",
				via, pn.ID, pa.Name, pa.PID),
			Hint: "submit_prompt types a prompt and checks it was submitted; wait_for_agent waits for its turn; answer_permission answers its question"}
	default:
		lines, err := Screen(ctx, srv, pn.ID)
		if err != nil {
			return err
		}
		if r := agent.Read(pa.Name, lines); r.State == agent.AskingPermission {
			return &Error{Class: "asking_permission",
				Msg:  fmt.Sprintf("%s%s in pane %s is asking a question; keys typed now would answer it:\n%s", via, pa.Name, pn.ID, r.Question),
				Hint: "answer_permission answers it"}
		}
	}
	return nil
}

// checkBehindClient is checkAgentPane for a pane whose process tree ends
// in terminal client pa.Client: its screen, read with every agent's
// rules, decides.
func checkBehindClient(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, pa PaneAgent, allowAgent bool, via string) error {
	lines, err := Screen(ctx, srv, pn.ID)
	if err != nil {
		return err
	}
	name, r, ok := agent.ReadAny(lines)
	switch {
	case !ok:
	case r.State == agent.AskingPermission:
		return &Error{Class: "asking_permission",
			Msg: fmt.Sprintf("%spane %s shows %s's permission question behind %s (process %d), which its process tree cannot see past; keys typed now would answer it:\n%s",
				via, pn.ID, name, pa.Client, pa.ClientPID, r.Question),
			Hint: "answer it where the agent runs (the server, host or container " + pa.Client + " reaches)"}
	case !allowAgent:
		return &Error{Class: "agent_pane",
			Msg: fmt.Sprintf("%spane %s shows %s, an agent CLI, behind %s (process %d): typing into it needs allow_agent: true (send_keys, paste_text, submit_prompt take it)",
				via, pn.ID, name, pa.Client, pa.ClientPID),
			Hint: "the keys reach that agent; drive it where it runs if you can"}
	}
	return nil
}

// CheckAttended refuses pane pn, unless allowAttended, when a person works
// in it: a client attached to its session shows it as the active pane
// and sent a key within attendedWithin. tmux-mcp's own clients are
// control clients and never count. via, when not empty, says how the
// keys reach pn.
func (g Guard) CheckAttended(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, allowAttended bool, via string) error {
	if allowAttended {
		return nil
	}
	clients, err := srv.ListClients(ctx)
	if err != nil {
		return err
	}
	return attendedBy(clients, pn.ID, via)
}

// attendedBy is CheckAttended's verdict over clients, the server's
// clients as just listed.
func attendedBy(clients []supervisor.AttachedClient, pane tmux.PaneID, via string) error {
	for _, c := range clients {
		if c.Control || c.Pane != pane {
			continue
		}
		if ago := time.Since(c.Activity); ago < attendedWithin {
			return &Error{Class: "attended_pane",
				Msg: fmt.Sprintf("%sa person is working in pane %s: terminal %s shows it and typed %s ago; typing into it needs allow_attended: true",
					via, pane, c.TTY, ago.Round(time.Second)),
				Hint: "ask the person first, or use another pane"}
		}
	}
	return nil
}
