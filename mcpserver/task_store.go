package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/taskext"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// taskStore keeps the MCP tasks (package taskext) in the job table: a
// task is a job of kind call, with the same IDs, the same journal record,
// listed by list_jobs and stopped by stop_job, lost when its server dies.
type taskStore struct{ c Config }

// Create records a call job of owner for req on the server its
// socket_name names.
func (s taskStore) Create(_ context.Context, req mcp.CallToolRequest, owner string, ctl taskext.Control) (string, error) {
	name, _ := req.GetArguments()["socket_name"].(string)
	sock, err := s.c.SocketArg(name)
	if err != nil || sock == (tmux.Socket{}) {
		sock = s.c.Sup.Config().DefaultSocket
	}
	j, err := s.c.Jobs.StartCall(sock, req.Params.Name, jobs.CallControl{Stop: ctl.Stop, Fail: ctl.Fail},
		jobrecord.Call{Status: taskext.Working, Owner: owner})
	if err != nil {
		return "", err
	}
	return j.ID(), nil
}

// Save records a change of the task's state in its job: the snapshot's
// call is the job's.
func (s taskStore) Save(snap taskext.Snapshot) {
	j, err := s.c.Jobs.Lookup(context.Background(), snap.ID)
	if err != nil {
		return
	}
	j.UpdateCall(snap.Call)
}

// deathClasses are the error classes of a tool result that mean the tmux
// server died under the call (or is being restarted after it did).
var deathClasses = map[string]bool{"no_server": true, "server_exited": true, "connection_lost": true, "restarting": true}

// lostCall tells a task's tool result that says its tmux server died: the
// task fails, as the protocol has a crash of what serves a request fail
// it, instead of completing with the tool's error. Which of the tool's
// error and the death event comes first is chance; both end the same.
func lostCall(res *mcp.CallToolResult) (string, bool) {
	if res.Meta == nil {
		return "", false
	}
	class, _ := res.Meta.AdditionalFields["error_type"].(string)
	if !deathClasses[class] {
		return "", false
	}
	why := "the tmux server died during the call (" + class + ")"
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			why += ": " + t.Text
			break
		}
	}
	return why, true
}

// Load returns a task an earlier tmux-mcp recorded.
func (s taskStore) Load(id string) (taskext.Snapshot, bool) {
	j, err := s.c.Jobs.Lookup(context.Background(), id)
	if err != nil {
		return taskext.Snapshot{}, false
	}
	rec := j.Record()
	if rec.Kind != jobrecord.KindCall || rec.Call == nil {
		return taskext.Snapshot{}, false
	}
	snap := taskext.Snapshot{ID: rec.ID, Created: rec.Started, Updated: rec.Started, Call: *rec.Call}
	if !rec.Ended.IsZero() {
		snap.Updated = rec.Ended
	}
	switch {
	case snap.Status == taskext.Completed && len(snap.Result) == 0:
		// Its result was too large to keep across a restart.
		snap.Status = taskext.Failed
		snap.Error = &taskext.RPCError{Code: mcp.INTERNAL_ERROR, Message: snap.Message}
	case !snap.Status.Terminal():
		// Only this process runs tasks: one still running in the record
		// belongs to a process that is gone.
		snap.Status = taskext.Failed
		snap.Error = &taskext.RPCError{Code: mcp.INTERNAL_ERROR, Message: "the call was lost: " + rec.Reason}
	case snap.Status == taskext.Failed && snap.Error == nil:
		snap.Error = &taskext.RPCError{Code: mcp.INTERNAL_ERROR, Message: snap.Message}
	}
	return snap, true
}
