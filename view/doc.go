// Package view is the live view of the supervised tmux servers: a page
// that tmux-mcp --http --view serves at /view/, and the same panes as an
// MCP App (a ui:// resource that MCP clients render).
//
// The page is read-only unless input is switched on. Its data come from a
// Source (package tools implements it over the supervisor, the jobs and the
// journal) through one Hub per process, which runs only while a browser
// watches: an overview of every server (health, sessions, windows, panes
// with their agent state and job, the journal's recent events) and of the
// jobs (each its record, jobrecord.Record, with only what the page shows:
// [Listed]) when it changes, and each pane's screen as frames at a bounded rate, rows that
// changed only, woken by the supervisor's watcher events. Pane text and
// keystrokes never reach a log.
//
// The assets (HTML, CSS, JavaScript) are embedded; nothing is fetched from
// the internet and nothing is built at run time.
//
// The end-to-end tests (*_e2e_test.go, package view_test) drive the built
// binary's view in chromium (browsertest), through internal/e2etest.
package view
