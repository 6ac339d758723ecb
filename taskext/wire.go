package taskext

import (
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
)

// Extension is the extension's identifier.
const Extension = "io.modelcontextprotocol/tasks"

// Method names of the extension.
const (
	methodGet    = "tasks/get"
	methodUpdate = "tasks/update"
	methodCancel = "tasks/cancel"
	methodList   = "tasks/list"   // 2025-11-25 only
	methodResult = "tasks/result" // 2025-11-25 only
	// notificationTasks carries a task's state on a subscriptions/listen
	// stream.
	notificationTasks = "notifications/tasks"
)

// Status is a task's state: the status of its job's call, the one the
// journal keeps.
type Status = jobrecord.TaskStatus

// The states of a task.
const (
	Working       = jobrecord.Working
	InputRequired = jobrecord.InputRequired
	Completed     = jobrecord.Completed
	Failed        = jobrecord.Failed
	Cancelled     = jobrecord.Cancelled
)

// RPCError is a JSON-RPC error as a failed task carries it.
type RPCError = jobrecord.RPCError

// Snapshot is a task's state at one moment: what tasks/get answers, what
// a notification carries and what the store records. Its Call is the
// task's part of its job's record (tool, status, message, TTL, poll
// interval, result, error, lost, owner), the value the store keeps, not
// a copy of it; the snapshot adds the task's ID and times, and what only
// this process holds.
type Snapshot struct {
	ID      string
	Created time.Time
	Updated time.Time
	jobrecord.Call
	// Inputs are the outstanding input requests of an input_required
	// task, by key: only this process can take their answers, so no
	// record keeps them.
	Inputs map[string]json.RawMessage
}

// wireTask is a task on the wire: the CreateTaskResult of a tools/call
// (resultType "task"), the result of tasks/get (resultType "complete")
// and the params of notifications/tasks (no resultType).
type wireTask struct {
	ResultType     mcp.ResultType             `json:"resultType,omitempty"`
	TaskID         string                     `json:"taskId"`
	Status         Status                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage,omitempty"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage            `json:"result,omitempty"`
	Error          *RPCError                  `json:"error,omitempty"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Meta           map[string]any             `json:"_meta,omitempty"`
}

// wire returns s on the wire; detailed adds the result, error or input
// requests (tasks/get and notifications), which a CreateTaskResult must
// not carry.
func (s Snapshot) wire(rt mcp.ResultType, detailed bool) wireTask {
	w := wireTask{ResultType: rt, TaskID: s.ID, Status: s.Status, StatusMessage: s.Message,
		CreatedAt: stamp(s.Created), LastUpdatedAt: stamp(s.Updated), PollIntervalMs: s.PollInterval.Milliseconds()}
	if s.TTL > 0 {
		ms := s.TTL.Milliseconds()
		w.TTLMs = &ms
	}
	if detailed {
		switch s.Status {
		case Completed:
			w.Result = s.Result
		case Failed:
			w.Error = s.Error
		case InputRequired:
			w.InputRequests = s.Inputs
		}
	}
	return w
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// JSON-RPC error codes the extension answers with.
const (
	codeMethodNotFound   = mcp.METHOD_NOT_FOUND
	codeInvalidParams    = mcp.INVALID_PARAMS
	codeInternal         = mcp.INTERNAL_ERROR
	codeHeaderMismatch   = mcp.HEADER_MISMATCH
	codeMissingClientCap = mcp.MISSING_REQUIRED_CLIENT_CAPABILITY
)

// missingCapability is the error of a request that needs the extension
// from a client that did not declare it.
func missingCapability() *RPCError {
	return &RPCError{Code: codeMissingClientCap, Message: "Missing required client capability: declare " + Extension +
		" in _meta[\"io.modelcontextprotocol/clientCapabilities\"].extensions",
		Data: map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{Extension: map[string]any{}}}}}
}

// rpcMessage is what the layer reads of a JSON-RPC message.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// response is a JSON-RPC response the layer writes.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

func reply(id json.RawMessage, result any) []byte {
	b, _ := json.Marshal(response{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: result})
	return b
}

func replyError(id json.RawMessage, e *RPCError) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(response{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: e})
	return b
}

// ack is the empty result of tasks/update and tasks/cancel.
type ack struct {
	ResultType mcp.ResultType `json:"resultType"`
}

// requestMeta is the part of a request's params the layer reads.
type requestMeta struct {
	Meta *mcp.Meta `json:"_meta,omitempty"`
}

// modern reports whether meta says protocol 2026-07-28 or later.
func modern(meta *mcp.Meta) bool {
	return meta != nil && mcp.IsModernProtocol(meta.ProtocolVersion())
}

// declared reports whether meta declares the extension.
func declared(meta *mcp.Meta) bool {
	if meta == nil {
		return false
	}
	caps := meta.ClientCapabilities()
	if caps == nil || caps.Extensions == nil {
		return false
	}
	_, ok := caps.Extensions[Extension]
	return ok
}
