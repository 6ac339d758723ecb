// Package jobrecord is the one record of a job: what the job table
// (package jobs) holds of each background command and MCP task, what the
// journal stores (jobs/ of each server, as this type's JSON), what the
// task layer (package taskext) answers from, and what the live view's
// page lists. One type, one schema: a field added here is kept across a
// restart, shown where it is shown, and read back by the next tmux-mcp.
//
// It sits below both jobs and journal (which cannot import each other)
// and imports nothing of the module but the wire's socket and pane IDs.
//
// Where to start: [Record] in record.go (a job: its pane, its state, where
// the pane's history stood, its output tail); [Call] in call.go (the part
// of a job that is a tool call made an MCP task: the task's state,
// [TaskStatus], its result or [RPCError]).
//
// The JSON is the journal's file format: a record written by an earlier
// tmux-mcp must read back (record_test.go keeps one of each release), so
// a field's name never changes and a new one is optional.
package jobrecord
