package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
)

// printTicksArg makes the scale binary a printing pane's program: it
// prints "tick N" every period, N from 1, until its terminal goes away.
// One process that never forks: a shell loop around sleep(1) forks twice
// a period per pane, and at 64 panes those forks took more of the
// machine than tmux and tmux-mcp together, which is the harness
// measuring itself.
const printTicksArg = "-print-ticks"

// tickCommand is the shell command of a printing pane that prints every
// period: this binary, run again with printTicksArg.
func tickCommand(period time.Duration) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("scale: find own binary for the printing panes: %w", err)
	}
	if self, err = filepath.Abs(self); err != nil {
		return "", fmt.Errorf("scale: find own binary for the printing panes: %w", err)
	}
	return "exec " + shellquote.Quote(self) + " " + printTicksArg + " " + period.String(), nil
}

// printTicks prints "tick N" lines every period (a time.Duration string)
// until writing fails, and returns the exit code.
func printTicks(period string) int {
	d, err := time.ParseDuration(period)
	if err != nil || d <= 0 {
		fmt.Fprintf(os.Stderr, "scale %s: want a positive duration, got %q\n", printTicksArg, period)
		return 2
	}
	t := time.NewTicker(d)
	defer t.Stop()
	for i := 1; ; i++ {
		if _, err := fmt.Printf("tick %d\n", i); err != nil {
			return 0
		}
		<-t.C
	}
}
