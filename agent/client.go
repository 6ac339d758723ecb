package agent

// Terminal clients. A pane whose process tree holds a terminal client
// (tmux attach, ssh, mosh, docker exec -it, ...) shows a screen drawn by
// programs its tree cannot see: an agent CLI behind the client is not in
// the pane's process tree, so Detect cannot find it. The tools read such
// a pane's screen with every row's rules instead (ReadAny), to refuse
// keys that would answer a question on it; the screen only ever adds a
// refusal there, it never names a program to trust.

// clients is the table of terminal clients: programs that show, in the
// pane, the screen of programs that run elsewhere (another tmux server or
// screen session, another host, a container or pod).
var clients = map[string]bool{
	// Terminal multiplexers' clients: the server runs outside the tree.
	"tmux": true, "screen": true, "zellij": true, "dtach": true, "abduco": true, "byobu": true,
	// Remote shells.
	"ssh": true, "autossh": true, "mosh": true, "mosh-client": true, "et": true, "telnet": true,
	"rsh": true, "rlogin": true,
	// Containers, pods, machines.
	"docker": true, "podman": true, "nerdctl": true, "kubectl": true, "oc": true, "lxc": true,
	"incus": true, "machinectl": true, "distrobox": true, "distrobox-enter": true, "toolbox": true,
	"vagrant": true,
}

// TerminalClient returns the first process of procs (a pane's process
// tree, the pane's process first, parents before children) that is a
// terminal client of the table, by the name of its executable (or the
// script an interpreter runs), and the client's name.
func TerminalClient(procs []Process) (string, Process, bool) {
	for _, p := range procs {
		names, _ := programs(p.Args)
		for _, n := range names {
			if clients[n] {
				return n, p, true
			}
		}
	}
	return "", Process{}, false
}

// ReadAny reads a screen whose program is not known (it runs behind a
// terminal client) with the rules of every row that has screen rules:
// the first row that reads a permission question below which no row's
// input area or turn end is drawn (one CLI's transcript can hold text
// that another's rules would take for its question), else the first row
// that reads the screen at all (not Unknown). ok is false when no row
// reads it.
func ReadAny(screen []string) (Name, Reading, bool) {
	lines := trimRight(screen)
	var name Name
	var found Reading
	ok := false
	for _, r := range rules {
		if r.input == nil {
			continue
		}
		got := Read(r.name, lines)
		switch {
		case got.State == AskingPermission && !belowAnyTranscript(r, lines):
			return r.name, got, true
		case got.State == AskingPermission:
			// Another CLI's transcript: what else the screen shows is
			// that CLI's.
		case got.State != Unknown && !ok:
			name, found, ok = r.name, got, true
		}
	}
	return name, found, ok
}

// belowAnyTranscript reports whether r's question on the screen has,
// below it, the input area or turn end of any row of the table.
func belowAnyTranscript(r *rule, lines []string) bool {
	q, _, _ := r.dialog(lines)
	for _, o := range rules {
		if o.input != nil && o.transcriptBelow(lines, q) {
			return true
		}
	}
	return false
}
