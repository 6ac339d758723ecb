package supervisor

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmux's options and hooks, typed: an option (or hook) read or set in the
// table an OptionScope names, and the user options (@name) tmux-mcp keeps
// on a pane. Each method sends one command through do and returns do's
// error as it is (see cmd_pane.go). Option names and values reach tmux as
// given: "--" keeps a name that starts with "-" from reading as a flag,
// and the wire refuses -F, which would expand a value.

// OptionScope names the table of options (or hooks) a command reads or
// sets, with the flags of set-option and show-options.
type OptionScope struct {
	// Server, Window and Pane pick the server, window or pane options (-s,
	// -w, -p); none: the session options, or the table tmux knows an
	// option's name from.
	Server, Window, Pane bool
	// Global is the global table (-g) that sessions and windows inherit
	// from, in place of a target's own.
	Global bool
	// Target is the session ($1), window (@1) or pane (%1) whose options
	// (-t); "": the global ones, or tmux's current target (on tmux-mcp's
	// control connection its hidden session: give one or Global).
	Target string
}

// args returns scope's flags: -s, -g, -w, -p, -t target, in that order.
func (o OptionScope) args() []string {
	var args []string
	for _, f := range []struct {
		on   bool
		flag string
	}{{o.Server, "-s"}, {o.Global, "-g"}, {o.Window, "-w"}, {o.Pane, "-p"}} {
		if f.on {
			args = append(args, f.flag)
		}
	}
	if o.Target != "" {
		args = append(args, "-t", o.Target)
	}
	return args
}

// ShowOption returns the value of option name in force in scope,
// inherited values included, as tmux prints it: an array option one
// line per index (show-options -A -v scope -- name). An option set
// nowhere is "" without an error; tmux calls an unset user option
// invalid (tmux.ErrCommand).
func (s *Server) ShowOption(ctx context.Context, scope OptionScope, name string) (string, error) {
	out, err := s.do(ctx, append(append([]string{"show-options", "-A", "-v"}, scope.args()...), "--", name)...)
	return string(out), err
}

// SetOption sets option name to value in scope (set-option scope -- name
// value).
func (s *Server) SetOption(ctx context.Context, scope OptionScope, name, value string) error {
	_, err := s.do(ctx, append(append([]string{"set-option"}, scope.args()...), "--", name, value)...)
	return err
}

// ShowHooks returns the hooks of scope as tmux prints them, one
// "name[index] command" line each (show-hooks scope [-- name]); name ""
// is every hook. Hooks have no server table: a scope with Server is an
// ErrInvalidArgument.
func (s *Server) ShowHooks(ctx context.Context, scope OptionScope, name string) (string, error) {
	if scope.Server {
		return "", fmt.Errorf("%w: hooks have no server scope (use Global)", ErrInvalidArgument)
	}
	args := append([]string{"show-hooks"}, scope.args()...)
	if name != "" {
		args = append(args, "--", name)
	}
	out, err := s.do(ctx, args...)
	return string(out), err
}

// PaneOptionNames returns the names of the options set on pane itself
// (show-options -p -t pane), not inherited ones.
func (s *Server) PaneOptionNames(ctx context.Context, pane tmux.PaneID) ([]string, error) {
	out, err := s.do(ctx, "show-options", "-p", "-t", string(pane))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if name, _, _ := strings.Cut(l, " "); name != "" {
			names = append(names, name)
		}
	}
	return names, nil
}

// PaneOption returns the value of option on pane, "" when it is not set
// (show-options -p -q -v -t pane option).
func (s *Server) PaneOption(ctx context.Context, pane tmux.PaneID, option string) (string, error) {
	out, err := s.do(ctx, "show-options", "-p", "-q", "-v", "-t", string(pane), option)
	return string(out), err
}

// UnsetPaneOption removes option from pane (set-option -p -u -t pane
// option).
func (s *Server) UnsetPaneOption(ctx context.Context, pane tmux.PaneID, option string) error {
	_, err := s.do(ctx, "set-option", "-p", "-u", "-t", string(pane), option)
	return err
}
