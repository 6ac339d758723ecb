package tools

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcpserver"
)

// Parameter descriptions. Every parameter of every tool has one (a test
// walks the registry): what it takes, its unit, default and ceiling where
// it has them, in as few words as that allows, since an agent reads them
// on every tools/list and the whole list must stay under 800 bytes a tool
// (TestContextCost). They live here, in one table, so that one word means
// one thing across the tools. What holds for all of them is said once, in
// the server instructions: booleans default to false and timeouts are in
// seconds unless a description says otherwise, and an object parameter
// also takes its JSON text. Names are libtmux-mcp's, including the two
// that differ from the rest (global_ and target of the option and hook
// tools); their descriptions say so.
//
// Lookup order: "tool.param" in paramDocs, then a description written
// where the parameter is declared, then "param" in paramDocs. In the text,
// {max_wait} is the waiting tools' ceiling in seconds (--max-wait),
// {capture_lines} and {max_capture_lines} the capture caps.
var paramDocs = map[string]string{
	// Targets (the instructions say how IDs and names match).
	"socket_name":          "tmux -L",
	"session_name":         "exact name",
	"session_id":           "$N",
	"window_id":            "@N",
	"window_index":         "index in the session",
	"pane_id":              "%N",
	"view_session.escapes": "rows keep their colour escapes (SGR), for the app",
	"source_pane_id":       "%N",
	"target_pane_id":       "%N",

	// Creating.
	"start_directory":             "working directory",
	"environment":                 "{NAME: value}",
	"suppress_persistent_history": "no shell history file",
	"restore_command":             "re-run it after a restore",
	"shell":                       "command instead of a shell",
	"window_name":                 "default: automatic",
	"create_session.session_name": "default: a number",
	"x":                           "columns",
	"y":                           "rows",
	"width":                       "columns",
	"height":                      "rows",
	"split_window.size":           `cells, or "50%"`,
	"split_window.direction":      "default below",
	"create_window.direction":     "of the active window (default: last)",
	"create_window.attach":        "make it current",
	"new_name":                    "new name",

	// Typing.
	"keys":                         "key names (Enter, C-c) or text",
	"literal":                      "keys are text",
	"enter":                        "then Enter (default true)",
	"suppress_history":             "leading space: not in shell history",
	"run_command.suppress_history": "leading space: not in shell history (default true)",
	"command":                      "one shell command line",
	"text":                         "pasted as is",
	"bracket":                      "bracketed paste if the app asks (default true)",
	"if_sha256":                    "sha256 of the screen you read; refused if it changed",
	"allow_agent":                  "even in an agent CLI's pane",
	"allow_attended":               "even in a person's pane",
	"answer_permission.answer":     "yes (once), yes_always or no",
	"send_keys.wait_for":           "then wait for this text (as wait_for_text)",
	"send_keys.timeout":            "of wait_for (default 8, max {max_wait})",
	"send_keys_batch.operations":   "[{keys, pane_id, enter, literal}], at most 1000",
	"send_keys_batch.timeout":      "for the whole batch (default none)",
	"operations":                   "[{tool, arguments}], at most 1000",
	"on_error":                     "at a failure (default stop)",
	"run_command.timeout":          "default 30, max {max_wait}",
	"run_command.max_lines":        "output lines kept, last (default {capture_lines})",
	"background":                   "return a job_id at once (get_job)",
	"job_id":                       "from run_command background",
	"get_job.timeout":              "wait for its end or a pattern, max {max_wait}",
	"get_job.patterns":             "an output line matching one ends the wait",
	"get_job.max_lines":            "output lines kept, last (default 50)",
	"list_jobs.state":              "only this state",
	"list_jobs.limit":              "jobs (default 50)",
	"grace":                        "seconds each step may take (default 3, max 30)",
	"wait_for_channel.timeout":     "default 30, max {max_wait}",
	"channel":                      "1-128 of A-Z a-z 0-9 _ . : -",
	"paste_buffer.bracket":         "bracketed paste (default true)",
	"content":                      "text",
	"buffer_name":                  "from load_buffer",
	"logical_name":                 "A-Z a-z 0-9 _ . - (default buf)",
	"show_buffer.max_lines":        "last lines (default 500; 0: all)",
	"kill":                         "a live process too (default true)",
	"output_path":                  "file in the pane's cwd or temp dir; none: stop",
	"append":                       "default true",
	"scroll_up":                    "lines",
	"select_pane.direction":        "instead of pane_id",
	"select_window.direction":      "instead of window_id",
	"zoom":                         "true zooms, false unzooms",
	"title":                        "literal text",
	"corner":                       "of the window",
	"format_string":                "tmux format, e.g. #{pane_width}",

	// Reading and waiting.
	"max_lines":                  "last lines kept (default {capture_lines}, max {max_capture_lines})",
	"capture_since.max_lines":    "last lines kept (default 500)",
	"max_bytes":                  "last bytes kept (default 128000)",
	"cursor":                     "from the last result (none: the screen)",
	"start":                      "first line: 0 top of screen, negative: history",
	"end":                        "last line (default: bottom of screen)",
	"content_start":              "first line: 0 top of screen, negative: history",
	"content_end":                "last line (default: bottom of screen)",
	"pattern":                    "substring, or RE2 with regex",
	"regex":                      "patterns are RE2, not substrings",
	"match_case":                 "case-sensitive",
	"search_panes.limit":         "panes (default 20)",
	"offset":                     "panes to skip",
	"max_matched_lines_per_pane": "last ones (default 10)",
	"patterns":                   "one matching line ends it (none: any output)",
	"stop":                       "patterns ending it as stopped",
	"timeout":                    "max {max_wait}",
	"wait_for_text.timeout":      "default 8, max {max_wait}",
	"interval":                   "poll period where no events (default 0.05)",
	"wait_for_text.since":        "last_send (default after a send; a match consumes), call: new output only",

	// Options, environment, hooks, journal, servers.
	"global_":                  "tmux -g",
	"scope":                    "default: by the option's name",
	"target":                   "name or ID in scope",
	"option":                   "name or @user_option",
	"value":                    "new value",
	"name":                     "variable",
	"hook_name":                "e.g. after-new-window",
	"layout":                   "tiled, main-vertical, ... or a window_layout",
	"filters":                  "{field__op: value}",
	"limit":                    "items (default 100)",
	"show_environment.filters": "{name__op: value}",
	"dry_run":                  "list the steps only",
	"resume_agents":            "resume each pane's agent CLI",
	"snapshot":                 "seq from list_snapshots (default latest)",
	"since":                    `"1h" or RFC 3339`,
	"diagnose.since":           "timeline, e.g. 2h (default 24h)",
	"all":                      "every server found",
	"journal_events.limit":     "default 50, max 1000",
	"list_snapshots.limit":     "default 20, max 1000",
	"extra_socket_paths":       "sockets to probe too",
	"destination_index":        "default: next free",
	"destination_session":      "name or $N (default: same)",
}

// The supervisor's default capture caps, for a catalog built without one
// (the README, tests).
const (
	captureLines    = 500
	maxCaptureLines = 10000
)

// describeParams returns t with a description on every parameter that
// has none (see paramDocs for the order of lookup).
func describeParams(t mcp.Tool, d Deps) mcp.Tool {
	if len(t.RawInputSchema) == 0 {
		return t
	}
	var in map[string]any
	if err := json.Unmarshal(t.RawInputSchema, &in); err != nil {
		panic("tools: input schema of " + t.Name + ": " + err.Error())
	}
	props, _ := in["properties"].(map[string]any)
	vars := strings.NewReplacer("{max_wait}", strconv.FormatFloat(d.maxWait().Seconds(), 'f', -1, 64),
		"{capture_lines}", strconv.Itoa(captureLines), "{max_capture_lines}", strconv.Itoa(maxCaptureLines))
	if d.Sup != nil {
		c := d.Sup.Config()
		vars = strings.NewReplacer("{max_wait}", strconv.FormatFloat(d.maxWait().Seconds(), 'f', -1, 64),
			"{capture_lines}", strconv.Itoa(c.CaptureLines), "{max_capture_lines}", strconv.Itoa(c.MaxCaptureLines))
	}
	for name, v := range props {
		p, _ := v.(map[string]any)
		if p == nil {
			continue
		}
		doc, ok := paramDocs[t.Name+"."+name]
		if !ok {
			if _, has := p["description"]; has {
				continue
			}
			doc, ok = paramDocs[name]
		}
		if ok {
			p["description"] = vars.Replace(doc)
		}
	}
	raw, err := mcpserver.EncodeJSON(in)
	if err != nil {
		panic("tools: input schema of " + t.Name + ": " + err.Error())
	}
	t.RawInputSchema = raw
	return t
}
