package mcpserver

import (
	"fmt"
	"strings"
)

// MaxInstructions is the budget for the server instructions, in bytes.
const MaxInstructions = 2048

// Instructions tells an agent how to use the server: the hierarchy, how to
// target (socket is the default server), the tier in force (tier names
// it; readonly says it is the lowest), and how to poll. callerPane is the
// tmux pane the server runs in, if any.
func Instructions(socket, tier string, readonly bool, callerPane string) string {
	seg := []string{
		"tmux-mcp drives tmux. Hierarchy: Server > Session > Window > Pane.",
		"Target by ID: sessions $N, windows @N, panes %N (unique per server). Names match exactly, never by prefix. " +
			"Find IDs with list_sessions, list_windows, list_panes. Without a target, tools act on the first session or window.",
		"Targeted tools accept socket_name (tmux -L); default server: " + socket + ". list_servers finds others.",
		"list_* tools search metadata (names, commands, paths), not pane text; filters take {field__op: value}.",
		"Parameters: booleans default to false and timeouts and intervals are in seconds unless described otherwise; " +
			"an object parameter also takes its JSON text.",
		"Every tmux call passes a supervisor: reads are cached and rate-limited, so polling is cheap; waiting for a change beats polling in a loop. " +
			"Subscribe to tmux://panes/{pane_id}/content to be told when a pane prints.",
		"WAIT, DON'T POLL: run_command for a command's exit status and output (background: true for a long one, then get_job with a timeout); " +
			"wait_for_text for output you did not author (event-driven); " +
			"capture_since to tail; snapshot_pane to look. Pass a capture's sha256 as if_sha256 to send_keys so keys never land on a screen you have not seen.",
		"Errors end with the error class in [brackets] and a next step. If the server is unreachable or restarting, call server_health and retry.",
		fmt.Sprintf("Safety level: %s (readonly < mutating < destructive). Tools above it are hidden; TMUX_MCP_SAFETY=destructive enables kill_*.", tier),
	}
	if readonly {
		seg = append(seg, "Readonly mode: list_sessions, list_panes and get_window_info are safe probes.")
	}
	if callerPane != "" {
		seg = append(seg, fmt.Sprintf("Agent context: this MCP server runs in tmux pane %s; list_panes marks it is_caller=true. Typing into, clearing, respawning or killing it (or its window, session, server) or changing its copy mode is refused unless the user confirms.", callerPane))
	}
	out := strings.Join(seg, "\n\n")
	if len(out) > MaxInstructions {
		out = strings.Join(seg[:len(seg)-1], "\n\n")
	}
	return out
}
