package agent

import (
	"path"
	"strings"
)

// Name names a known agent CLI ("claude", "codex", ...).
type Name string

// Process is one process of a pane's process tree: its PID and its
// command line (argv).
type Process struct {
	PID  int
	Args []string
}

// interpreters run a program given as their first argument that is not
// an option: the program is then that argument.
var interpreters = map[string]bool{
	"node": true, "nodejs": true, "bun": true, "deno": true,
	"python": true, "python3": true, "env": true,
}

// pythonVersion reports whether base names a versioned Python
// interpreter (python3.12).
func pythonVersion(base string) bool { return strings.HasPrefix(base, "python3.") }

// programs returns the names a process goes by: the base name of its
// executable and, for an interpreter, the script it runs, and the path of
// that script or executable (a package's files live under its name).
func programs(args []string) (names, paths []string) {
	for i, a := range args {
		if i > 0 && strings.HasPrefix(a, "-") {
			continue
		}
		base := path.Base(a)
		names = append(names, base)
		paths = append(paths, a)
		if !interpreters[base] && !pythonVersion(base) {
			break
		}
		if i > 4 {
			break
		}
	}
	return names, paths
}

// Detect returns the known agent CLI among procs, the pane's process
// first and then its descendants, parents before children: the first
// process any row of the table recognises, which is the one nearest the
// pane (an agent that runs another agent as a tool shows its own screen).
func Detect(procs []Process) (Name, Process, bool) {
	for _, p := range procs {
		names, paths := programs(p.Args)
		for _, r := range rules {
			if r.recognises(names, paths) {
				return r.name, p, true
			}
		}
	}
	return "", Process{}, false
}

// recognises reports whether a process with these names and paths is r's
// agent.
func (r *rule) recognises(names, paths []string) bool {
	for _, n := range names {
		for _, b := range r.bins {
			if n == b {
				return true
			}
		}
	}
	for _, p := range paths {
		for _, pkg := range r.packages {
			if strings.Contains(p, "/"+pkg+"/") {
				return true
			}
		}
	}
	return false
}
