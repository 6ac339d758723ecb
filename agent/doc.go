// Package agent recognises the agent CLIs that run in tmux panes (Claude
// Code, Codex CLI, Gemini CLI, opencode, aider, cursor-agent) and reads
// what each is doing from its screen: working, waiting for input, asking
// permission (with the question), or gone.
//
// Which program runs is read from the pane's process tree ([Detect]),
// never from the pane's title or the screen, which the program (or
// anything it prints) controls. What it is doing is read from the screen
// ([Read]) by the rules of one table, a row per agent (rules.go); a screen
// no rule of its row explains is [Unknown], never a guess.
//
// Which conversation a running CLI writes to is read from the CLI's own
// records that name its process ([ConversationOf]: Claude Code's session
// file for its PID, the rollout file Codex holds open), never by taking
// the newest file, and [Conversation.ResumeArgv] is the CLI's own resume
// of it: what brings an agent back after its tmux server died.
//
// The package talks to no tmux server and starts no process: the tools
// give it the process tree and the screen.
package agent
