package jobrecord

import (
	"encoding/json"
	"time"
)

// Call is the part of a job's record that a tool call made an MCP task
// keeps beyond a command's: the task's state, so that tasks/get answers
// after tmux-mcp restarted. The task layer (taskext.Snapshot) holds the
// same value, not a copy of its fields.
type Call struct {
	Tool    string     `json:"tool"`
	Status  TaskStatus `json:"status"`
	Message string     `json:"message,omitempty"`
	// Result is the tool result of a completed task (JSON), Error the
	// JSON-RPC error of a failed one.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
	// TTL is how long the task is kept after it was created; 0: no limit.
	TTL time.Duration `json:"ttl,omitempty"`
	// PollInterval is the polling interval the client is asked to keep.
	PollInterval time.Duration `json:"poll_interval,omitempty"`
	// Lost: the task failed because what it worked on went away (its
	// tmux server died); its job is lost.
	Lost bool `json:"lost,omitempty"`
	// Owner is the key of the caller the task belongs to (taskext.Owner):
	// a digest, never a credential or a session ID. The tools show the
	// job to it alone.
	Owner string `json:"owner,omitempty"`
}

// TaskStatus is a task's state.
type TaskStatus string

// The states of a task.
const (
	Working       TaskStatus = "working"
	InputRequired TaskStatus = "input_required"
	Completed     TaskStatus = "completed"
	Failed        TaskStatus = "failed"
	Cancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is an end state.
func (s TaskStatus) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// RPCError is a JSON-RPC error as a failed task carries it.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}
