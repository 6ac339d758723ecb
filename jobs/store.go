package jobs

import "github.com/tmux-mcp/tmux-mcp/jobrecord"

// Store keeps jobs across tmux-mcp restarts. cmd/tmux-mcp passes the
// journal, which stores the records as they are (jobrecord's JSON); nil
// keeps jobs in this process only.
type Store interface {
	// PutJob records a job; it never blocks. A record of a job that
	// ended is never replaced by one that says it runs.
	PutJob(jobrecord.Record)
	// Jobs returns the jobs of every server, oldest first.
	Jobs() ([]jobrecord.Record, error)
}
