package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Prompts are workflow recipes a client offers its user (slash commands in
// most clients): libtmux-mcp's four, with the same names and arguments, and
// recover_after_crash, which only a supervising server can offer. Each
// renders one user message of Markdown that names the tools to call, in
// order, with the arguments filled in.

// promptSpec is one prompt: its schema and its text.
type promptSpec struct {
	prompt mcp.Prompt
	render func(args map[string]string) (string, error)
}

// addPrompts registers the prompts. journal says whether the journal's
// tools (journal_events, restore_sessions) are served, which changes what
// recover_after_crash can promise; socketArg checks its socket_name.
func addPrompts(s *server.MCPServer, journal bool, socketArg func(string) (tmux.Socket, error)) {
	for _, p := range prompts(journal, socketArg) {
		s.AddPrompt(p.prompt, func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text, err := p.render(req.Params.Arguments)
			if err != nil {
				return nil, fmt.Errorf("prompt %s: %w", p.prompt.Name, err)
			}
			return mcp.NewGetPromptResult(p.prompt.Description,
				[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
		})
	}
}

func prompts(journal bool, socketArg func(string) (tmux.Socket, error)) []promptSpec {
	paneArg := mcp.WithArgument("pane_id", mcp.RequiredArgument(), mcp.ArgumentDescription("Target pane ID, e.g. %1."))
	return []promptSpec{
		{mcp.NewPrompt("run_and_wait",
			mcp.WithPromptDescription("Run a shell command in a pane, wait for it to finish, and read its exit status and output."),
			mcp.WithArgument("command", mcp.RequiredArgument(), mcp.ArgumentDescription("The shell command to run.")),
			paneArg,
			mcp.WithArgument("timeout", mcp.ArgumentDescription("Seconds to wait for the command (default 60).")),
		), renderRunAndWait},
		{mcp.NewPrompt("diagnose_failing_pane",
			mcp.WithPromptDescription("Gather a pane's state and propose a root cause, without running anything yet."),
			paneArg,
		), renderDiagnose},
		{mcp.NewPrompt("build_dev_workspace",
			mcp.WithPromptDescription("Create a session with an editor on top, a shell bottom-left and a log tail bottom-right."),
			mcp.WithArgument("session_name", mcp.RequiredArgument(), mcp.ArgumentDescription("Name of the new session.")),
			mcp.WithArgument("log_command", mcp.ArgumentDescription(`Command for the logs pane (default "watch -n 1 date").`)),
		), renderWorkspace},
		{mcp.NewPrompt("interrupt_gracefully",
			mcp.WithPromptDescription("Interrupt what runs in a pane with Ctrl-C and check that the shell prompt came back."),
			paneArg,
		), renderInterrupt},
		{mcp.NewPrompt("recover_after_crash",
			mcp.WithPromptDescription("After a tmux server crash or restart: read the supervisor's account, restore what can be restored, and re-target by the new IDs."),
			mcp.WithArgument("socket_name", mcp.ArgumentDescription("The server's socket name (tmux -L); default: tmux-mcp's default server.")),
		), func(args map[string]string) (string, error) { return renderRecover(args, journal, socketArg) }},
	}
}

// paneArgument returns the pane_id argument, checked.
func paneArgument(args map[string]string) (string, error) {
	id := strings.TrimSpace(args["pane_id"])
	if !paneIDRe.MatchString(id) {
		return "", newArgError("pane_id", "want a pane ID like %%1 (list_panes shows them)")
	}
	return id, nil
}

// q quotes a value for a call shown in a prompt (JSON string syntax, which
// is also what MCP arguments are).
func q(s string) string { return strconv.Quote(s) }

func renderRunAndWait(args map[string]string) (string, error) {
	pane, err := paneArgument(args)
	if err != nil {
		return "", err
	}
	command := args["command"]
	if strings.TrimSpace(command) == "" {
		return "", newArgError("command", "want the shell command to run")
	}
	timeout := 60.0
	if s := strings.TrimSpace(args["timeout"]); s != "" {
		timeout, err = strconv.ParseFloat(s, 64)
		if err != nil || timeout <= 0 {
			return "", newArgError("timeout", "want a positive number of seconds")
		}
	}
	multiline := strings.ContainsAny(command, "\r\n")
	var b strings.Builder
	fmt.Fprintf(&b, "Run a shell command in tmux pane %s, wait until it finishes, and read the typed result:\n\n", pane)
	fmt.Fprintf(&b, "    run_command(pane_id=%s, command=%s,", q(pane), q(command))
	if multiline {
		b.WriteString(" suppress_history=false,")
	}
	fmt.Fprintf(&b, " timeout=%s, max_lines=100)\n\n", strconv.FormatFloat(timeout, 'f', -1, 64))
	if multiline {
		b.WriteString("The command spans several lines, so shell-history suppression is off for it: the shell may record it.\n\n")
	}
	b.WriteString("Decide from `exit_status`, `timed_out` and `output`. Do not loop on send_keys and capture_pane for a " +
		"command you wrote: run_command already waits for the command itself and returns the tail of its output.\n\n")
	fmt.Fprintf(&b, "If the task needs shell state that persists, or keystrokes for a full-screen program, use send_keys "+
		"(or send_keys_batch) instead, then read what followed with capture_since, or subscribe to %s and read it "+
		"when tmux-mcp says it changed.\n", ContentURI(pane))
	return b.String(), nil
}

func renderDiagnose(args map[string]string) (string, error) {
	pane, err := paneArgument(args)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`Something went wrong in tmux pane %[1]s. Find out what before changing anything:

1. snapshot_pane(pane_id=%[2]s): the visible text, cursor position, pane mode and scroll state in one call.
2. If the text came back truncated, call it again with max_lines=null.
3. To watch the pane over more than one turn, call capture_since(pane_id=%[2]s), keep the cursor it returns and pass it to the next call; or subscribe to %[3]s and read it when notified.
4. Find the last command that ran (the prompt line and the line above it) and the last line of output that is not empty.
5. State a root-cause hypothesis and the smallest command that would confirm it. Do not run it yet: give the plan first.
`, pane, q(pane), ContentURI(pane)), nil
}

func renderWorkspace(args map[string]string) (string, error) {
	name := args["session_name"]
	if strings.TrimSpace(name) == "" {
		return "", newArgError("session_name", "want a name for the new session")
	}
	logCmd := args["log_command"]
	if strings.TrimSpace(logCmd) == "" {
		logCmd = "watch -n 1 date"
	}
	return fmt.Sprintf(`Set up a development workspace in a new tmux session %[1]s: an editor on top, a shell bottom-left, a log tail bottom-right.

1. create_session(session_name=%[1]s). It starts with one pane, the editor: call its active_pane_id %%A.
2. split_window(pane_id="%%A", direction="below"). The new pane is the shell: call its pane_id %%B.
3. split_window(pane_id="%%B", direction="right"). The new pane shows the logs: call its pane_id %%C.
4. send_keys(pane_id="%%A", keys="vim") and send_keys(pane_id="%%C", keys=%[2]s). Leave %%B at its prompt. There is no need to wait before sending: tmux queues keystrokes in the pane until the shell reads them.
5. Optionally check that each program drew something: wait_for_text(pane_id="%%A", patterns=null, timeout=3.0), and the same for %%C. Without patterns it waits for any new output, whatever the shell or program.

From here on, target panes by their IDs (%%N): they survive layout changes and renames.
`, q(name), q(logCmd)), nil
}

func renderInterrupt(args map[string]string) (string, error) {
	pane, err := paneArgument(args)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`Interrupt what is running in tmux pane %[1]s and check that the shell is back:

1. get_pane_info(pane_id=%[2]s): note pane_current_command, the program running now.
2. send_keys(pane_id=%[2]s, keys="C-c", literal=false, enter=false): tmux turns C-c into SIGINT for the program.
3. wait_for_text(pane_id=%[2]s, patterns=["\\$ ", "# ", "%% "], regex=true, timeout=5.0): wait for a shell prompt (adjust the patterns to the user's prompt). Do not put "^C" in stop: the terminal echoes it on every interrupt, also when the interrupt worked.
4. get_pane_info(pane_id=%[2]s) again: pane_current_command should now be the shell.
5. If the wait timed out or the program still runs, it ignores SIGINT. Stop and ask the user what to do. Do not escalate on your own to C-\ (SIGQUIT, which may dump core) or kill.
`, pane, q(pane)), nil
}

// Journal text of recover_after_crash: what can be learned and restored
// about the dead server. Adjust here when the journal's tools change.
const (
	recoverWithJournal    = `2. journal_events(%[1]s) lists what the journal recorded around the death: the sessions, windows and panes the server held, and what happened to them. If server_health or journal_events does not show that a restore already ran, call restore_sessions(%[1]s): it rebuilds sessions, windows and panes (names, working directories, layouts, titles) and reports which new ID replaced each old one. It re-runs only commands of panes created with restore_command.`
	recoverWithoutJournal = `2. This tmux-mcp keeps no journal (journal_events and restore_sessions are not among its tools), so it cannot see what the dead server held: sessions, windows and panes that died with it are gone unless the supervisor's restart already brought them back (list_sessions shows what exists now). Nothing recorded which commands ran in them: ask the user what to rebuild, or rebuild it from what this conversation shows.`

	retargetWithJournal    = `3. Re-target. The new server numbers sessions, windows and panes from 0 again. An old ID ($N, @N, %%N) the new server does not know is mapped to the object restored in its place, and the result says so (resolved_ids); but an old ID the new server does know names ITS object, which may be a different one. So replace every old ID now: restore_sessions(%[1]sdry_run=true) returns ids, the map from old to new IDs; use only the new IDs from here on.`
	retargetWithoutJournal = `3. Re-target. Session, window and pane IDs ($N, @N, %%N) of the dead server mean nothing on the new one. Call list_sessions and list_panes%[1]s, match sessions by name, windows by index and name, panes by position, working directory and title, and use only the new IDs from here on.`
)

func renderRecover(args map[string]string, journal bool, socketArg func(string) (tmux.Socket, error)) (string, error) {
	sockArg, err := socketArg(strings.TrimSpace(args["socket_name"]))
	if err != nil {
		return "", err
	}
	which, call := "tmux-mcp's default tmux server", ""
	if sockArg.Name != "" {
		which, call = "the tmux server on socket "+q(sockArg.Name), "socket_name="+q(sockArg.Name)
	}
	step2, step3 := recoverWithoutJournal, fmt.Sprintf(retargetWithoutJournal, withArgs(call))
	if journal {
		callComma := call
		if call != "" {
			callComma += ", "
		}
		step2, step3 = fmt.Sprintf(recoverWithJournal, call), fmt.Sprintf(retargetWithJournal, callComma)
	}
	return fmt.Sprintf(`The tmux server may have crashed or been restarted (%[1]s). Recover before you continue:

1. server_health(%[2]s): read state, restoring, last_death_cause, last_death, restarts and retry_in_seconds.
   - state "restarting": the supervisor is bringing the server back. Wait retry_in_seconds, then call server_health again.
   - restoring true: the journal is rebuilding the sessions; other calls wait for it (at most 10 s each).
   - state "down": automatic restarts gave up; last_death says why and what to do. Tell the user before you start anything.
   - state "up" with restarts above 0: this is a new server process.
%[3]s
%[4]s
4. Programs that ran in the old panes did not survive, except commands of panes created with restore_command. Re-run only what the user asks you to re-run.
`, which, call, step2, step3), nil
}

func withArgs(call string) string {
	if call == "" {
		return ""
	}
	return " (" + call + ")"
}

// ContentURI is the content resource of pane, percent-encoded.
func ContentURI(pane string) string { return "tmux://panes/" + url.PathEscape(pane) + "/content" }
