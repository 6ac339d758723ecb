// Package diagnostics writes the crash report for `tmux-mcp diagnose` and
// the diagnose MCP tool: it runs the checks a person would run by hand
// after "no server running on /tmp/tmux-1000/default" (permissions, stale
// sockets, PTY and fd exhaustion, exit options, versions, macOS
// specifics), reads tmux-mcp's journal, and says what most likely
// happened, with the evidence for and against each candidate.
//
// # The same verdicts as the supervisor
//
// Diagnose gathers what is left of a server (the socket file and what a
// connect() says about it, the processes listening on its path, the exit
// status of an unreaped zombie, the kernel's log of a crash or OOM kill,
// the answer to one tmux client, the journal's record) into a
// death.Evidence and classifies it with death.Classify,
// the classifier the supervisor's monitor uses. The evidence helpers are
// the supervisor's too (PIDAlive, ProbeSocket, ZombieStatus, ListenerPIDs,
// SampleResources). Each verdict says how sure it is and what that rests
// on: after the fact, with nobody watching, the evidence of a kill -9
// survives only while the dead server is a zombie or in the journal.
//
// # Never worse
//
// Diagnose starts no tmux server and creates no session: it sends a tmux
// client only to a socket that accepts connections (so tmux neither starts
// a server nor creates a directory), with -N where the client has it, only
// commands that cannot start a server, and a deadline (a stopped server
// never answers). It sends none to a server whose fds are so close to its
// limit that the client's three could tip it into livelock.
//
// Where to start: [Run] and [Options]; [Report], its [Report.Markdown] and
// [Report.JSON]; [Journal] and [HealthSource], the interfaces the binary
// wires in. One file per concern: socket.go (directory, socket file,
// discovery), cleaner.go (temporary-file cleaners), process.go (server
// processes and zombies), kernel.go (the kernel's log), probe.go (the one
// tmux client), serverchecks.go
// (process, exit options, history), versions.go, system.go (PTYs, file
// handles, this process), darwin.go (macOS, testable anywhere), journal.go,
// health.go, verdict.go (evidence and confidence), causes.go (ranking and
// next steps), timeline.go, markdown.go.
package diagnostics
