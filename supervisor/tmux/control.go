package tmux

import (
	"context"
	"errors"
)

// STUB: the control-mode client is being implemented; this file pins its API.

// ControlOptions configures a control-mode connection.
type ControlOptions struct {
	// Exec supplies the binary, socket, config and environment used to start
	// the `tmux -C attach-session` client process.
	Exec *Exec
	// Target is the session to attach to, e.g. "=__tmux_mcp" or "$3".
	Target string
	// Flags are the client flags passed with attach-session -f, e.g.
	// "no-output,ignore-size" for the command connection or
	// "ignore-size,pause-after=5" for a watcher. Ignored before tmux 3.2.
	Flags string
	// MaxInFlight bounds requests written but not yet answered; Run waits
	// for room (within its deadline). Default 64.
	MaxInFlight int
	// OnNotify, when set, receives every notification, in order, on the
	// reader goroutine. It must not block; it must not call Run.
	OnNotify func(Notification)
	// AutoContinue makes the connection answer %pause for a pane with
	// refresh-client -A '%N:continue' (watchers with pause-after).
	AutoContinue bool
}

// Control is one persistent control-mode client. It implements Transport.
type Control struct{}

// DialControl starts `tmux <socket> -C attach-session -t <Target> [-f Flags]`
// and returns once the attach block has been read.
func DialControl(ctx context.Context, opts ControlOptions) (*Control, error) {
	return nil, errors.New("tmux: control mode not implemented yet")
}

// Run sends one command and returns its output block.
func (c *Control) Run(ctx context.Context, args ...string) ([]byte, error) {
	return nil, errors.New("tmux: control mode not implemented yet")
}

// Kind returns "control".
func (c *Control) Kind() string { return "control" }

// Close ends the client process and waits for the reader goroutine.
func (c *Control) Close() error { return nil }

// Done is closed when the connection has ended for any reason.
func (c *Control) Done() <-chan struct{} { return nil }

// Err returns nil while the connection is up, then a *ConnLostError.
func (c *Control) Err() error { return nil }

// PID returns the control client's process ID.
func (c *Control) PID() int { return 0 }

// NotificationType names a control-mode notification.
type NotificationType string

// Notification is one control-mode notification line, parsed.
type Notification struct {
	Type    NotificationType
	Pane    PaneID    // %output, %extended-output, %pause, %continue, %pane-mode-changed, %window-pane-changed
	Window  WindowID  // %window-*, %layout-change, %window-pane-changed, %session-window-changed
	Session SessionID // %session-*, %session-window-changed
	Name    string    // new name for renames, session name for %session-changed
	Data    []byte    // unescaped output bytes for %output and %extended-output
	Args    []string  // remaining fields, e.g. layouts for %layout-change, reason for %exit
	Raw     string    // the line as received (may be large for output)
}

// Notification types.
const (
	NotifyOutput               NotificationType = "output"
	NotifyExtendedOutput       NotificationType = "extended-output"
	NotifyPause                NotificationType = "pause"
	NotifyContinue             NotificationType = "continue"
	NotifyWindowAdd            NotificationType = "window-add"
	NotifyWindowClose          NotificationType = "window-close"
	NotifyWindowRenamed        NotificationType = "window-renamed"
	NotifyUnlinkedWindowAdd    NotificationType = "unlinked-window-add"
	NotifyUnlinkedWindowClose  NotificationType = "unlinked-window-close"
	NotifyUnlinkedWindowRename NotificationType = "unlinked-window-renamed"
	NotifyWindowPaneChanged    NotificationType = "window-pane-changed"
	NotifyLayoutChange         NotificationType = "layout-change"
	NotifySessionChanged       NotificationType = "session-changed"
	NotifyClientSessionChanged NotificationType = "client-session-changed"
	NotifySessionRenamed       NotificationType = "session-renamed"
	NotifySessionsChanged      NotificationType = "sessions-changed"
	NotifySessionWindowChanged NotificationType = "session-window-changed"
	NotifyPaneModeChanged      NotificationType = "pane-mode-changed"
	NotifyClientDetached       NotificationType = "client-detached"
	NotifySubscriptionChanged  NotificationType = "subscription-changed"
	NotifyExit                 NotificationType = "exit"
	NotifyOther                NotificationType = "other"
)

// Quote turns an argv into one control-mode command line (no trailing
// newline) such that tmux's parser yields exactly these arguments and runs
// exactly one command.
func Quote(args []string) string { return "" }

// UnescapeBuffer undoes the escaping show-buffer applies in control mode
// (VIS_OCTAL|VIS_CSTYLE|VIS_TAB: "\\" for a backslash, "\t", C escapes,
// "\ooo" octal).
func UnescapeBuffer(b []byte) []byte { return b }
