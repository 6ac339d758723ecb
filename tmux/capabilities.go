package tmux

// Capabilities: what differs between the tmux versions tmux-mcp supports
// (3.2a to 3.7c), in one table. Each row names the behaviour, the versions
// that have it, how it is detected and the tmux change behind it; each row
// has a test that runs on every version of the matrix (capabilities_test.go,
// make matrix). No other code compares version numbers: it asks
// Version.Capabilities.
//
// Every row is detected from the server's #{version}, which Client reads
// once per server (one round trip it makes anyway). None has a probe that
// would be cheaper than that and as sure: a leak (ControlCapture) cannot be
// seen by probing, and the others would each cost a round trip per connect.
//
// What is the same everywhere and so needs no row: #{q:...} escapes the
// same characters on every version (records rely on it, see record.go);
// tmux -u makes a client UTF-8 whatever its locale (3.2a and later).

// Capabilities says what a tmux version does; see capabilityTable.
type Capabilities struct {
	// ControlCapture: capture-pane -p over control mode does not leak the
	// capture inside the server. Otherwise captures over control go
	// through a named buffer.
	ControlCapture bool
	// ClientFlags: attach-session -f / refresh-client -f with no-output,
	// ignore-size, pause-after, and tmux -N.
	ClientFlags bool
	// Foreground: tmux -D runs the server in the foreground.
	Foreground bool
	// ControlNotifyInBlock: %pause/%continue may appear inside a command's
	// %begin/%end block.
	ControlNotifyInBlock bool
	// ShowBufferEscaped: show-buffer to a control client escapes the data
	// (VIS_OCTAL|VIS_CSTYLE|VIS_TAB, codec.UnescapeBuffer undoes it);
	// without it the data comes raw.
	ShowBufferEscaped bool
	// OutputEscaped: command output (list-*, display-message -p) goes
	// through utf8_stravisx(VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH): control
	// characters come out as "\ooo". The record codec decodes it; this row
	// is here so that the difference is written down and tested.
	OutputEscaped bool
	// OutputDollarEscaped: with OutputEscaped, a '$' that a letter, '_' or
	// '{' follows comes out as "\$".
	OutputDollarEscaped bool
	// ControlClientSizesWindows: a window that a command from a control
	// client creates takes that client's size (80x24) instead of the
	// session's (-x/-y of new-session). tmux-mcp creates windows over its
	// control connection, so on these versions new windows are 80x24 until
	// a client attaches or resize_window sets them. (Sending new-window over
	// exec does not help: a client without a terminal is 80x24 too.) A
	// known limit, in the README's platform table.
	ControlClientSizesWindows bool
	// MissingTimeCrashes: expanding a time variable (window_activity,
	// session_created, ...) of an object that does not exist kills the
	// server. display-message -t answers for a target that does not exist
	// (on every version), so a time variable read with display-message
	// must be guarded (#{?window_id,...,}); the probe is.
	MissingTimeCrashes bool
	// ControlBuffersCrash: creating or deleting a paste buffer notifies
	// every control client (%paste-buffer-changed, new in 3.4), also one
	// still connecting, whose control state is not set up yet: the server
	// dies of a NULL dereference in control_write (a case of
	// IdentifyingClientNotified, which tmux-mcp's own clients never meet).
	// And show-buffer to a control client prints from memory evbuffer_add
	// may just have moved. tmux-mcp makes no buffer of its own for a
	// capture on any version (Client.Capture); a buffer an agent asks for
	// (load_buffer, paste_text) still notifies another program's control
	// client that is connecting (README).
	ControlBuffersCrash bool
	// FDLimitLivelock: a server at its fd limit spins on the pending
	// connection and answers no client (the supervisor's fd_livelock death).
	// 3.6b and 3.7c keep answering at their limit: a new pane fails there,
	// the server stays usable, and the supervisor must leave it alone.
	FDLimitLivelock bool
	// TitlesEscaped: tmux stores a pane title escaped with vis(3), as it
	// stores window and session names on every version. A title holds no
	// control character on any version (tmux ignores such a title), so
	// what changes is a backslash: it comes back doubled. To set a title
	// that tmux reports as T again, set UnescapeStored(T) (the journal's
	// restore plan does).
	TitlesEscaped bool
	// NewWindowNameEscaped: a window name given to new-window -n or
	// new-session -n is stored escaped (vis(3), as TitlesEscaped), as
	// rename-window stores one on every version; before, it is stored as
	// given. Session names are stored escaped on every version.
	NewWindowNameEscaped bool
	// ProgramJobsDefused: in a title, window name or directory that a
	// pane's program sets (OSC 0, 2 and 7, ESC k, automatic-rename), tmux
	// writes "#(" as "_(", so that a format showing it cannot run a job. A
	// title set with select-pane -T keeps its "#(".
	ProgramJobsDefused bool
	// SpinRegressions: the known regressions of 3.7 (reference peers.md,
	// section 3): clients busy-spin in sendmsg when the socket is
	// congested; the server spins in select() after an SSH client dies
	// uncleanly (tmux #5455); the server livelocks for good in
	// server_client_ensure_ranges (tmux #5510). tmux-mcp's diagnose warns
	// about them (diagnostics/versions.go).
	SpinRegressions bool
	// DeadPaneOutputCrash: a control client that receives pane output
	// (no no-output flag) may crash the server when a pane dies and is
	// kept (remain-on-exit): tmux goes on writing the output it had queued
	// for that client from the pane's event, which server_destroy_pane has
	// freed and set to NULL (a segfault in window_pane_get_new_data). The
	// command connection is no-output and safe; watcher connections
	// receive output, so tmux-mcp opens none (Client.Watch refuses):
	// captures are proven by the probe and waits poll. iTerm2's tmux -CC
	// and other control-mode tools still crash such servers (diagnose
	// warns).
	DeadPaneOutputCrash bool
	// IdentifyingClientNotified: tmux writes session notifications (a
	// session created, closed, renamed or switched, a pane selected or in
	// copy mode, a buffer changed, an attached client leaving) to every
	// control client, also one still identifying itself, which has no
	// control state yet: the server dies of SIGSEGV in control_write. A
	// loop attaching tmux's own control clients (tmux -C) beside a loop
	// creating and killing sessions kills 3.2a-3.6b within a second.
	// tmux-mcp's control clients identify in one turn of the server's loop
	// (package native), so none is ever in that state when anything runs
	// (TestControlClientsUnderChurn); another program's tmux -C still can
	// be (diagnose warns).
	IdentifyingClientNotified bool
	// ImsgFDMark: the server's messages mark a passed file descriptor
	// with the top bit of their 32-bit length; before, with IMSGF_HASFD in
	// a 16-bit flags field after a 16-bit length (native/imsg.go). tmux-mcp's
	// control clients pass two descriptors while they identify, so they
	// must use the server's layout.
	ImsgFDMark bool
}

// capability is one row of the table.
type capability struct {
	name   string // the Capabilities field
	since  [2]int // first version with it (major, minor)
	until  [2]int // first version without it; {0, 0}: still there
	why    string // the tmux change that explains it
	set    func(*Capabilities)
	detect string // how tmux-mcp knows
}

// capabilityTable is every behaviour that differs between versions.
var capabilityTable = []capability{
	{name: "ClientFlags", since: [2]int{3, 2}, detect: "version",
		why: "3.2 added client flags (attach -f, refresh-client -f: no-output, ignore-size, pause-after) and tmux -N (CHANGES, 3.2)",
		set: func(c *Capabilities) { c.ClientFlags = true }},
	{name: "Foreground", since: [2]int{3, 2}, detect: "version",
		why: "3.2 added tmux -D: the server stays in the foreground and its parent can wait for it (CHANGES, 3.2)",
		set: func(c *Capabilities) { c.Foreground = true }},
	{name: "ControlNotifyInBlock", since: [2]int{0, 0}, detect: "version",
		why: "control.c writes %pause/%continue from the output path, which may run while a command's reply block is open (every release to 3.7c, and next-3.8)",
		set: func(c *Capabilities) { c.ControlNotifyInBlock = true }},
	{name: "ShowBufferEscaped", since: [2]int{0, 0}, until: [2]int{3, 4}, detect: "version",
		why: "cmd-save-buffer.c: up to 3.3a show-buffer to a control client prints utf8_stravisx(VIS_OCTAL|VIS_CSTYLE|VIS_TAB) of the data; 3.4 prints the data itself (cmdq_print_data with parse set)",
		set: func(c *Capabilities) { c.ShowBufferEscaped = true }},
	{name: "OutputEscaped", since: [2]int{3, 4}, until: [2]int{3, 6}, detect: "version",
		why: "server-client.c server_client_print: 3.4 and 3.5a print command output (cmdq_print, parse unset) through utf8_stravisx(VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH); 3.6 prints it as it is (cmdq_print_data always parses)",
		set: func(c *Capabilities) { c.OutputEscaped = true }},
	{name: "OutputDollarEscaped", since: [2]int{3, 4}, until: [2]int{3, 5}, detect: "version",
		why: "utf8.c utf8_strvis: 3.4 puts a backslash before '$' followed by a letter, '_' or '{' always; 3.5 only with VIS_DQ, which command output does not use",
		set: func(c *Capabilities) { c.OutputDollarEscaped = true }},
	{name: "ControlClientSizesWindows", since: [2]int{0, 0}, until: [2]int{3, 3}, detect: "version",
		why: "resize.c default_window_size: 3.3 ignores the creating client when it is a control client; 3.2a sizes the window from it",
		set: func(c *Capabilities) { c.ControlClientSizesWindows = true }},
	{name: "MissingTimeCrashes", since: [2]int{0, 0}, until: [2]int{3, 3}, detect: "version",
		why: "format.c format_find: 3.2a dereferences the time a FORMAT_TABLE_TIME callback returns without checking it for NULL (3.3 checks)",
		set: func(c *Capabilities) { c.MissingTimeCrashes = true }},
	{name: "ControlBuffersCrash", since: [2]int{3, 4}, until: [2]int{3, 6}, detect: "version",
		why: "control-notify.c: 3.4 added %paste-buffer-changed/-deleted, sent to clients with CLIENT_CONTROL even before control_start (3.7 checks control_state); server-client.c server_client_print prints EVBUFFER_DATA taken before evbuffer_add; 3.6 captures with capture-pane -p and needs no buffer",
		set: func(c *Capabilities) { c.ControlBuffersCrash = true }},
	{name: "FDLimitLivelock", since: [2]int{0, 0}, until: [2]int{3, 6}, detect: "version",
		why: "observed in the matrix (TestFDLivelockTerminatedAndRestarted; by hand with prlimit --nofile=24): 3.3a at its limit hangs every client, 3.7c answers; server_accept is unchanged, so the difference is in how a pane's spawn fails at the limit (not traced further)",
		set: func(c *Capabilities) { c.FDLimitLivelock = true }},
	{name: "TitlesEscaped", since: [2]int{3, 7}, detect: "version",
		why: "screen.c screen_set_title: 3.7 stores a title through clean_name (tmux.c: utf8_stravis with VIS_OCTAL|VIS_CSTYLE|VIS_TAB|VIS_NL), which window_set_name and session names used before; 3.6 stores the title as given (CHANGES 3.7: sanitize pane titles and window and session names more consistently, issue 4999)",
		set: func(c *Capabilities) { c.TitlesEscaped = true }},
	{name: "NewWindowNameEscaped", since: [2]int{3, 7}, detect: "version",
		why: "cmd-new-window.c, cmd-new-session.c: 3.7 passes -n through clean_name; 3.6 stores the expanded name as given (spawn.c), while rename-window (window_set_name) and session names (session_check_name) escape on every version",
		set: func(c *Capabilities) { c.NewWindowNameEscaped = true }},
	{name: "ProgramJobsDefused", since: [2]int{3, 7}, detect: "version",
		why: "tmux.c clean_name: 3.7 replaces the '#' of \"#(\" with '_' in names a pane's program sets (input.c passes untrusted=1 for titles (OSC 0/2), directories (OSC 7) and window names (ESC k) a program sets, names.c for automatic-rename)",
		set: func(c *Capabilities) { c.ProgramJobsDefused = true }},
	{name: "SpinRegressions", since: [2]int{3, 7}, until: [2]int{3, 8}, detect: "version",
		why: "regressions of 3.7 reported upstream and not fixed in 3.7c (next-3.8's CHANGES name no fix either, but nor was any reported against it, so diagnose warns of 3.7.x only): clients busy-spin in sendmsg under socket congestion (h0x91b/dev-3.0 #810, which pins 3.6a), the server spins in select() after an SSH client dies uncleanly (tmux #5455, 3.7b), the server livelocks in server_client_ensure_ranges (tmux #5510, 3.7c)",
		set: func(c *Capabilities) { c.SpinRegressions = true }},
	{name: "IdentifyingClientNotified", since: [2]int{0, 0}, until: [2]int{3, 7}, detect: "version",
		why: "control-notify.c CONTROL_SHOULD_NOTIFY_CLIENT: before 3.7 only CLIENT_CONTROL (set by MSG_IDENTIFY_FLAGS), while control_start runs at MSG_IDENTIFY_DONE; 3.7 also checks control_state",
		set: func(c *Capabilities) { c.IdentifyingClientNotified = true }},
	{name: "DeadPaneOutputCrash", since: [2]int{0, 0}, until: [2]int{3, 3}, detect: "version",
		why: "control.c control_write_pending: 3.2a writes a control client's pending output of a pane that died (server-fn.c server_destroy_pane: fd -1, event NULL) and segfaults in window_pane_get_new_data; 3.3 drops the pending blocks of such a pane (wp == NULL || wp->fd == -1)",
		set: func(c *Capabilities) { c.DeadPaneOutputCrash = true }},
	{name: "ImsgFDMark", since: [2]int{3, 6}, detect: "version",
		why: "compat/imsg.c: 3.6 took OpenBSD's newer imsg, whose header has a 32-bit len marked with IMSG_FD_MARK (0x80000000) for a passed descriptor and no flags field; 3.5a's has a 16-bit len and IMSGF_HASFD in a 16-bit flags field",
		set: func(c *Capabilities) { c.ImsgFDMark = true }},
	{name: "ControlCapture", since: [2]int{3, 6}, detect: "version",
		why: "before 3.6 capture-pane -p to a control client leaks the capture inside the server (fixed in 3.6, CHANGES)",
		set: func(c *Capabilities) { c.ControlCapture = true }},
}

// Capabilities returns what this version does, from capabilityTable.
func (v Version) Capabilities() Capabilities {
	var c Capabilities
	for _, row := range capabilityTable {
		if v.AtLeast(row.since[0], row.since[1]) && (row.until == [2]int{} || !v.AtLeast(row.until[0], row.until[1])) {
			row.set(&c)
		}
	}
	return c
}
