package taskext

import (
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
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

// Status is a task's state.
type Status string

// The states of a task.
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal reports whether s is an end state.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// RPCError is a JSON-RPC error as a failed task carries it.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Snapshot is a task's state at one moment: what tasks/get answers, what
// a notification carries and what the store records.
type Snapshot struct {
	ID      string
	Tool    string
	Status  Status
	Message string
	Created time.Time
	Updated time.Time
	// TTL is how long the task is kept after it was created; 0: no limit.
	TTL time.Duration
	// PollInterval is the polling interval the client is asked to keep.
	PollInterval time.Duration
	// Result is the tool result of a completed task.
	Result json.RawMessage
	// Error is the JSON-RPC error of a failed task.
	Error *RPCError
	// Inputs are the outstanding input requests of an input_required
	// task, by key.
	Inputs map[string]json.RawMessage
	// Lost: the task failed because what it worked on went away (its
	// tmux server died).
	Lost bool
	// Owner is the key of the caller the task belongs to (owner.go).
	Owner string
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
