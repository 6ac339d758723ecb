// Package marks reads the semantic prompt marks a shell writes into its
// terminal (OSC 133, the FinalTerm marks that VS Code, WezTerm, kitty,
// Ghostty, iTerm2 and tmux 3.8 read): A where a prompt begins, B where
// the command line begins, C where the command's output begins, and D,
// with the command's exit status, where it ends.
//
// A [Scanner] finds the marks in a pane's output as tmux hands it to a
// control client (%output), a chunk at a time: a mark split across chunks
// is found once. A [Tracker] keeps, per pane, what the marks say: whether
// the shell is at a prompt, whether a command runs, and the commands that
// ended, with their status and times (bounded).
//
// Marks are bytes a pane prints, so any program in the pane can print
// them too: what a Tracker says is what the pane's output claims, never
// proof. Nothing here talks to tmux.
package marks
