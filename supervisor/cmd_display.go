package supervisor

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmux's display-message, typed: a format expanded for one pane, or for
// the server. The methods return do's error as it is. For a pane that does not exist tmux
// may answer without an error, expanding the format for no pane (3.3a)
// or another one: a caller that must know reads pane_id and compares.

// DisplayMessage expands format for pane and returns the result without
// its final newline (display-message -p -t pane -- format; "--": a format
// that starts with "-" is not a flag). A format is expanded, that is the
// point, so #() jobs and the E: and T: modifiers in it run: the caller
// refuses them in a format it did not write.
func (s *Server) DisplayMessage(ctx context.Context, pane tmux.PaneID, format string) (string, error) {
	out, err := s.do(ctx, "display-message", "-p", "-t", string(pane), "--", format)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// DisplayRecord reads the format variables fields of pane as one record
// and returns their values in order (display-message -p -t pane with
// tmux.RecordFormat of fields). An output that is not one record of
// len(fields) values is an error wrapping tmux's record error.
func (s *Server) DisplayRecord(ctx context.Context, pane tmux.PaneID, fields ...string) ([]string, error) {
	out, err := s.do(ctx, "display-message", "-p", "-t", string(pane), tmux.RecordFormat(fields...))
	if err != nil {
		return nil, err
	}
	f, err := tmux.ParseRecord(out, len(fields))
	if err != nil {
		return nil, fmt.Errorf("supervisor: display-message for %s: %w", pane, err)
	}
	return f, nil
}

// ServerRecord reads format variables that need no pane (the server's:
// pid, version, socket_path; loops such as S:) as one record and returns
// their values in order (display-message -p with tmux.RecordFormat of
// fields). An output that is not one record of len(fields) values is an
// error wrapping tmux's record error.
func (s *Server) ServerRecord(ctx context.Context, fields ...string) ([]string, error) {
	out, err := s.do(ctx, "display-message", "-p", tmux.RecordFormat(fields...))
	if err != nil {
		return nil, err
	}
	f, err := tmux.ParseRecord(out, len(fields))
	if err != nil {
		return nil, fmt.Errorf("supervisor: display-message: %w", err)
	}
	return f, nil
}
