package tmux

import (
	"bytes"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux/codec"
)

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

// ParseNotification parses one control-mode notification line (without its
// newline), such as "%window-add @3" or "%output %1 hi\015\012". Unknown
// notifications come back as NotifyOther with the fields in Args; a line that
// does not start with "%" also comes back as NotifyOther. It never fails:
// fields that are missing stay empty.
func ParseNotification(line []byte) Notification {
	n := Notification{Raw: string(line)}
	if len(line) == 0 || line[0] != '%' {
		n.Type = NotifyOther
		return n
	}
	name, rest, _ := bytes.Cut(line[1:], []byte(" "))
	n.Type = NotificationType(name)
	switch n.Type {
	case NotifyOutput:
		pane, data, _ := bytes.Cut(rest, []byte(" "))
		n.Pane = PaneID(pane)
		n.Data = codec.UnescapeOutput(data)
		return n
	case NotifyExtendedOutput:
		// %extended-output %<pane> <age> ... : <data>
		pane, after, _ := bytes.Cut(rest, []byte(" "))
		n.Pane = PaneID(pane)
		if i := bytes.Index(after, []byte(" : ")); i >= 0 {
			n.Args = strings.Fields(string(after[:i]))
			n.Data = codec.UnescapeOutput(after[i+3:])
		} else if head, ok := bytes.CutSuffix(after, []byte(" :")); ok {
			n.Args = strings.Fields(string(head))
			n.Data = []byte{}
		} else {
			n.Args = strings.Fields(string(after))
		}
		return n
	case NotifySubscriptionChanged:
		// %subscription-changed <name> $s @w idx %p ... : <value>
		head, value, ok := strings.Cut(string(rest), " : ")
		if !ok {
			head, ok = strings.CutSuffix(string(rest), " :")
			value = ""
		}
		f := strings.Fields(head)
		if len(f) > 0 {
			n.Name, f = f[0], f[1:]
		}
		for _, a := range f {
			switch {
			case strings.HasPrefix(a, "$") && n.Session == "":
				n.Session = SessionID(a)
			case strings.HasPrefix(a, "@") && n.Window == "":
				n.Window = WindowID(a)
			case strings.HasPrefix(a, "%") && n.Pane == "":
				n.Pane = PaneID(a)
			}
		}
		n.Args = f
		if ok {
			n.Data = []byte(value)
		}
		return n
	}

	s := string(rest)
	switch n.Type {
	case NotifyPause, NotifyContinue, NotifyPaneModeChanged:
		pane, more, _ := strings.Cut(s, " ")
		n.Pane = PaneID(pane)
		n.Args = fieldsOrNil(more)
	case NotifyWindowAdd, NotifyWindowClose, NotifyUnlinkedWindowAdd, NotifyUnlinkedWindowClose:
		win, more, _ := strings.Cut(s, " ")
		n.Window = WindowID(win)
		n.Args = fieldsOrNil(more)
	case NotifyWindowRenamed, NotifyUnlinkedWindowRename:
		// The name is the rest of the line and may contain spaces.
		win, name, _ := strings.Cut(s, " ")
		n.Window, n.Name = WindowID(win), name
	case NotifyWindowPaneChanged:
		win, pane, _ := strings.Cut(s, " ")
		n.Window, n.Pane = WindowID(win), PaneID(pane)
	case NotifyLayoutChange:
		win, more, _ := strings.Cut(s, " ")
		n.Window = WindowID(win)
		n.Args = fieldsOrNil(more)
	case NotifySessionChanged, NotifySessionRenamed:
		sess, name, _ := strings.Cut(s, " ")
		n.Session, n.Name = SessionID(sess), name
	case NotifyClientSessionChanged:
		// %client-session-changed <client> $<id> <name>
		client, more, _ := strings.Cut(s, " ")
		sess, name, _ := strings.Cut(more, " ")
		n.Session, n.Name = SessionID(sess), name
		n.Args = []string{client}
	case NotifySessionWindowChanged:
		sess, win, _ := strings.Cut(s, " ")
		n.Session, n.Window = SessionID(sess), WindowID(win)
	case NotifySessionsChanged:
		n.Args = fieldsOrNil(s)
	case NotifyClientDetached:
		n.Name = s
		n.Args = fieldsOrNil(s)
	case NotifyExit:
		if s != "" {
			n.Args = []string{s}
		}
	default:
		n.Type = NotifyOther
		n.Args = append([]string{string(name)}, strings.Fields(s)...)
	}
	return n
}

func fieldsOrNil(s string) []string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return nil
	}
	return f
}
