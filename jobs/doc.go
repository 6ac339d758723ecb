// Package jobs is the engine behind run_command's background mode: the
// table of this process's background jobs, their persistence, the
// goroutine that watches each one, the look at their processes, and what
// happens when their pane or server goes away. The MCP tools (run_command
// with background, get_job, list_jobs, stop_job, the tmux://jobs/{job_id}
// resource) live in package tools and call this one.
//
// A job is a command line typed at a pane's prompt whose call returned at
// once with a job ID (j and 10 hex digits); a goroutine of this process
// then waits for its end. The pane stays a pane: a person can watch it
// and anyone can type into it; only another run_command, foreground or
// not, is refused while the job runs there ([BusyError]), and one server
// runs at most [MaxPerServer] jobs ([LimitError]). The engine never types
// or captures itself: the caller that typed the line hands over a [Run]
// ([NewRun] of a drive.Line), which waits for the line's end, reads its
// output and watches its pane.
//
// A job is [jobrecord.Running], then [jobrecord.Exited] (with its exit
// status, or none when it is unknown) or [jobrecord.Lost] (its pane was
// closed or respawned, or its server died or was replaced). The end is found three ways, whichever
// comes first:
//   - the wait-for channel ([Run.Await]): the line's ending signals it
//     after recording the end in a pane option; exact, and no tmux call
//     while the command runs;
//   - the job's processes (proc.go): the processes below the pane's
//     process that were not there before the line was typed
//     ([jobrecord.Record.Before]). When they are gone and no end is
//     recorded, the shell dropped the rest of the line, which every POSIX
//     shell does after a command dies of SIGINT (C-c): the job has exited,
//     its status unknown;
//   - the pane and the server: a pane closed or respawned, or a server
//     that died (supervisor.EventServerDied), makes the job lost.
//
// [Job.Stop] ends a job: C-c into its pane, then SIGTERM, then SIGKILL to
// its processes (a process group of the job's own as a group; never the
// group of the pane's process, nor tmux-mcp's).
//
// Persistence: every change of state is recorded in the [Store] (the
// journal, which keeps the record as it is) as a [jobrecord.Record], the
// one record of a job, which holds no command line. Closing the [Table] stops watching but not the jobs: they run on,
// recorded as running. A tmux-mcp that starts ([Table.Open]) takes over
// the jobs of tmux-mcp processes that are gone and re-arms the running
// ones: it checks each against the live server before it reports it
// (same server, same pane process, else lost), reads the end recorded in
// the pane's option if the job ended while nobody watched, and else waits
// for its channel again. (The record comes first: tmux keeps the wait of
// a client that was killed, the last tmux-mcp's, and hands it a signal
// sent while nobody else waited.)
//
// Where to start: [Table] in table.go (New, Open, Reserve and Launch, Lookup,
// Close); [Job] in job.go; the watch loop in watch.go; the take-over after a
// restart in rearm.go; [Job.Stop] in stop.go; the process tree in proc.go;
// what the engine asks of a job's line in run.go ([Run], read through
// package drive's [drive.Line]; a job taken over is resumed there too).
package jobs
