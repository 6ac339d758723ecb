package tools

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/taskext"
)

// taskTools are the tools that may become MCP tasks: those whose call can
// outlast a client's patience (a command, a wait, a restore, a batch of
// them). A call of one that ends within the budget answers as before.
var taskTools = map[string]bool{"run_command": true, "wait_for_text": true, "wait_for_channel": true,
	"get_job": true, "restore_sessions": true, "wait_for_agent": true, "submit_prompt": true, "send_keys_batch": true, "call_readonly_tools_batch": true,
	"call_mutating_tools_batch": true, "call_destructive_tools_batch": true}

// withTaskSupport marks e's tool as one that may become a task.
func withTaskSupport(e Entry) Entry {
	if taskTools[e.Tool.Name] {
		e.Tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	}
	return e
}

// seesJob reports whether the caller o may read or stop the job of rec: a
// background command is every caller's (issue 48 will give it a team); a
// task's call is its caller's alone (taskext: owner.go).
func seesJob(o taskext.Owner, rec jobrecord.Record) bool {
	return rec.Kind != jobrecord.KindCall || rec.Call != nil && o.Sees(rec.Call.Owner)
}

// listsJob reports whether list_jobs of the caller o shows the job of rec:
// a task's call only to its caller, and only when that caller is one
// client (a sessionless HTTP caller's tasks are found by ID alone).
func listsJob(o taskext.Owner, rec jobrecord.Record) bool {
	return rec.Kind != jobrecord.KindCall || rec.Call != nil && o.Lists(rec.Call.Owner)
}
