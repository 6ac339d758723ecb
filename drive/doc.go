// Package drive is pane driving: typing into a tmux pane and reading what
// comes back. It types keys and lines (keys.go), remembers where a pane's
// output stood at the last send (sendmark.go), waits for a pane to take
// keys (ready.go) and for the prompt a command left pending
// (promptwait.go), runs one command line at a shell's prompt and finds
// its end and output (run.go, runscript.go, runend.go, runprompt.go),
// waits for text printed since a send or a call (wait.go, waitcheck.go,
// follow.go, pattern.go), reads the lines printed since a cursor
// (since.go), and finds a screen again after tmux freed history lines
// (histanchor.go, splitrows.go). It pastes text through a private buffer
// (paste.go), submits a prompt to an interactive program and sees it taken
// (submit.go, submit_wait.go, submit_transcript.go, screen.go), and waits
// for an agent CLI's turn to end, its question to show and to go
// (agentwait.go), reading the agent through the [AgentReader] its caller
// hands it. A feed (changefeed.go) says when a pane
// may have changed: from the supervisor's watcher events, else by polling.
//
// Where to start: [Panes] (paneio.go) is the state the calls of one
// catalog share: one keystroke lock per pane, the panes seen ready, the
// send marks. [Run] is one run_command, [Panes.Wait] one wait_for_text,
// [Since] one capture_since ([Cursor], cursor.go), [Submission] one
// submit_prompt. [Line] is a command line typed for a
// background job, as package jobs reads it ([Run.Start], [Resume]).
//
// What it does not do: it defines no MCP tool, schema or argument, and
// checks no argument; package tools does, and turns this package's
// errors ([PaneGoneError], [DeadError], [RespawnedError], [ShellError],
// [SentError], [RangeError], [CursorError], [NotSubmittedError]) into
// tool errors with their class and what to do next. It never talks to tmux itself: every tmux call goes through
// a *supervisor.Server. It decides nothing about safety (the guards that
// refuse a pane are tools'), and reports progress only through the
// [Progress] its caller hands it.
package drive
