package supervisor

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// list-panes queries the model queries (ListPanes, Pane) do not cover:
// tmux filters the panes, or reads one window, and the answer is a small
// typed result, or every pane's record. They return do's error as it is.

// FilterPanes returns the IDs of the panes of every session for which
// tmux's filter format expands to true (list-panes -a -f filter -F
// #{pane_id}). The filter is expanded, that is the point: the caller
// escapes any text of its own in it. tmux-mcp's hidden session is not
// left out.
func (s *Server) FilterPanes(ctx context.Context, filter string) ([]tmux.PaneID, error) {
	out, err := s.do(ctx, "list-panes", "-a", "-f", filter, "-F", "#{pane_id}")
	if err != nil {
		return nil, err
	}
	var ids []tmux.PaneID
	for _, id := range strings.Fields(string(out)) {
		ids = append(ids, tmux.PaneID(id))
	}
	return ids, nil
}

// SynchronizedPanes reports, for each pane of pane's window, whether its
// synchronize-panes option is on (list-panes -t pane -F "#{pane_id}
// #{pane_synchronized}"). A pane that does not exist matches
// tmux.ErrNotFound.
func (s *Server) SynchronizedPanes(ctx context.Context, pane tmux.PaneID) (map[tmux.PaneID]bool, error) {
	out, err := s.do(ctx, "list-panes", "-t", string(pane), "-F", "#{pane_id} #{pane_synchronized}")
	if err != nil {
		return nil, err
	}
	synced := map[tmux.PaneID]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		id, on, ok := strings.Cut(line, " ")
		if ok {
			synced[tmux.PaneID(id)] = on == "1"
		}
	}
	return synced, nil
}

// PaneRecords reads the format variables fields of every pane of every
// session, hidden session included, one record a pane in tmux's order
// (by session name, window index, pane index), values in the order of
// fields (list-panes -a -F with tmux.RecordFormat of fields). tmux fails
// on a server without a session. An output that is not records of
// len(fields) values is an error wrapping tmux's record error.
func (s *Server) PaneRecords(ctx context.Context, fields ...string) ([][]string, error) {
	out, err := s.do(ctx, "list-panes", "-a", "-F", tmux.RecordFormat(fields...))
	if err != nil {
		return nil, err
	}
	recs, err := tmux.ParseRecords(out, len(fields))
	if err != nil {
		return nil, fmt.Errorf("supervisor: list-panes: %w", err)
	}
	return recs, nil
}
