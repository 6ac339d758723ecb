package supervisor

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmux's pane options, typed: the user options (@name) tmux-mcp keeps on
// a pane. Each method sends one command through Do and returns Do's error
// as it is (see cmd_pane.go).

// PaneOptionNames returns the names of the options set on pane itself
// (show-options -p -t pane), not inherited ones.
func (s *Server) PaneOptionNames(ctx context.Context, pane tmux.PaneID) ([]string, error) {
	out, err := s.Do(ctx, "show-options", "-p", "-t", string(pane))
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
	out, err := s.Do(ctx, "show-options", "-p", "-q", "-v", "-t", string(pane), option)
	return string(out), err
}

// UnsetPaneOption removes option from pane (set-option -p -u -t pane
// option).
func (s *Server) UnsetPaneOption(ctx context.Context, pane tmux.PaneID, option string) error {
	_, err := s.Do(ctx, "set-option", "-p", "-u", "-t", string(pane), option)
	return err
}
