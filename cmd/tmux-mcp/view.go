package main

import (
	"errors"
	"fmt"
	"log/slog"

	"golang.org/x/sys/unix"

	"github.com/tmux-mcp/tmux-mcp/tools"
	"github.com/tmux-mcp/tmux-mcp/view"
)

// checkView refuses a --view that cannot be served: it needs the HTTP
// transport, and typing from it the destructive tier.
func checkView(c config, tier tools.Tier) error {
	switch {
	case c.View && c.HTTP == "" && c.HTTPSocket == "":
		return errors.New("--view is served over HTTP: add --http 127.0.0.1:8765 (or --http-socket PATH)")
	case c.ViewInput && !c.View:
		return errors.New("--view-input types from the --view page: add --view")
	case c.ViewInput && tier < tools.Destructive:
		return fmt.Errorf("--view-input lets the page type anything into any pane: it needs --safety destructive (the tier is %s)", tier)
	}
	return nil
}

// startView mounts the live view on the HTTP server and says where it
// is. The sign-in link carries the token: it is printed only to a
// terminal, never to a log file or a pipe.
func startView(o serveOptions, ts *tools.Server, e env, logger *slog.Logger) {
	h := view.NewHandler(ts.View(), view.Options{Input: o.ViewInput, Logger: logger})
	o.http.SetView(h)
	plain, signIn := o.http.ViewURL()
	logger.Info("view", "url", plain, "input", o.ViewInput)
	if signIn != "" && o.LogFile == "" && isTerminal(e.stderr) {
		fmt.Fprintf(e.stderr, "\n  Open the view (this link signs you in; it holds the token):\n  %s\n\n", signIn)
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return err == nil
}
