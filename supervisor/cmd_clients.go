package supervisor

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// AttachedClient is one client attached to a session, as list-clients
// tells it.
type AttachedClient struct {
	TTY     string         // client_tty ("" for a control client)
	Session tmux.SessionID // the session it shows
	Window  tmux.WindowID  // that session's current window
	Pane    tmux.PaneID    // that window's active pane
	// Activity is when the client last sent a key (tmux updates
	// client_activity on key input, on attach and on resume).
	Activity time.Time
	Control  bool // a control-mode client (tmux-mcp's own, among others)
}

// clientFields are what ListClients reads of each client.
var clientFields = []string{"client_tty", "session_id", "window_id", "pane_id", "client_activity", "client_control_mode"}

// ListClients returns the clients attached to a session
// (list-clients -F), control-mode clients included: the caller tells
// them apart. It returns do's error as it is.
func (s *Server) ListClients(ctx context.Context) ([]AttachedClient, error) {
	out, err := s.do(ctx, "list-clients", "-F", tmux.RecordFormat(clientFields...))
	if err != nil {
		return nil, err
	}
	recs, err := tmux.ParseRecords(out, len(clientFields))
	if err != nil {
		return nil, fmt.Errorf("supervisor: list-clients: %w", err)
	}
	var cs []AttachedClient
	for _, f := range recs {
		if f[1] == "" {
			continue // not attached to a session
		}
		secs, _ := strconv.ParseInt(f[4], 10, 64)
		cs = append(cs, AttachedClient{TTY: f[0], Session: tmux.SessionID(f[1]), Window: tmux.WindowID(f[2]),
			Pane: tmux.PaneID(f[3]), Activity: time.Unix(secs, 0), Control: f[5] == "1"})
	}
	return cs, nil
}
