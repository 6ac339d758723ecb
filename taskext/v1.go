package taskext

import (
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// The tasks of protocol 2025-11-25 (experimental in its core): the
// client asks for a task with params.task on tools/call, polls tasks/get,
// fetches the result with tasks/result (which waits for the end), lists
// with tasks/list and cancels with tasks/cancel. mcp-go v1.2.1 implements
// them, but runs the task's handler on the context of the tools/call
// request, which it cancels as soon as that request is answered: every
// task of a handler that heeds its context is cancelled at once. So the
// layer serves them too, on the same tasks (one engine, one ID space):
// the tools/call goes on to mcp-go without params.task, marked for the
// middleware, which makes it a task at once.

// v1Mark is the _meta key (below the placeholder's) that marks a
// tools/call whose client asked for a 2025-11-25 task.
func (m *Manager) v1Mark() string { return m.placeholder + "/v1" }

// v1Task is t on the wire of 2025-11-25.
func v1Task(s Snapshot) mcp.Task {
	t := mcp.Task{TaskId: s.ID, Status: mcp.TaskStatus(s.Status), StatusMessage: s.Message,
		CreatedAt: s.Created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: s.Updated.UTC().Format(time.RFC3339Nano)}
	if s.TTL > 0 {
		ms := s.TTL.Milliseconds()
		t.TTL = &ms
	}
	if s.PollInterval > 0 {
		ms := s.PollInterval.Milliseconds()
		t.PollInterval = &ms
	}
	if s.Status == InputRequired {
		// 2025-11-25 asks for input apart from the task; tmux-mcp
		// does not: the task waits as working.
		t.Status = mcp.TaskStatusWorking
	}
	return t
}

// v1ToolsCall marks a 2025-11-25 tools/call that asks for a task of a
// task-supporting tool for the middleware, without params.task.
func (m *Manager) v1ToolsCall(msg rpcMessage, raw []byte) inbound {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(msg.Params, &p); err != nil || p["task"] == nil || string(p["task"]) == "null" {
		return inbound{pass: raw, id: msg.ID}
	}
	var name string
	_ = json.Unmarshal(p["name"], &name)
	if !m.toolSupports(name) {
		return inbound{pass: raw, id: msg.ID} // mcp-go refuses it
	}
	var task mcp.TaskParams
	_ = json.Unmarshal(p["task"], &task)
	delete(p, "task")
	var meta map[string]json.RawMessage
	if p["_meta"] != nil {
		_ = json.Unmarshal(p["_meta"], &meta)
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	var ttl int64
	if task.TTL != nil {
		ttl = *task.TTL
	}
	meta[m.v1Mark()], _ = json.Marshal(map[string]int64{"ttl": ttl})
	p["_meta"], _ = json.Marshal(meta)
	msg.Params, _ = json.Marshal(p)
	out, err := json.Marshal(msg)
	if err != nil {
		return inbound{pass: raw, id: msg.ID}
	}
	return inbound{pass: out, id: msg.ID}
}

// v1Method answers the task methods of 2025-11-25 of the caller o;
// tasks/result waits for the task's end (later). A task of another
// caller is not found, and not listed.
func (m *Manager) v1Method(msg rpcMessage, o Owner) inbound {
	if len(msg.ID) == 0 {
		return inbound{}
	}
	if msg.Method == methodList {
		var tasks []mcp.Task
		for _, s := range m.snapshots() {
			if o.Lists(s.Owner) {
				tasks = append(tasks, v1Task(s))
			}
		}
		if tasks == nil {
			tasks = []mcp.Task{}
		}
		return inbound{reply: reply(msg.ID, mcp.ListTasksResult{Tasks: tasks})}
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	if err := json.Unmarshal(msg.Params, &p); err != nil || p.TaskID == "" {
		return inbound{reply: replyError(msg.ID, &RPCError{Code: codeInvalidParams, Message: "Invalid params: taskId is required"})}
	}
	s, ok := m.lookupFor(o, p.TaskID)
	if !ok {
		return inbound{reply: replyError(msg.ID, &RPCError{Code: codeInvalidParams, Message: "task not found: " + quoteID(p.TaskID)})}
	}
	switch msg.Method {
	case methodGet:
		return inbound{reply: reply(msg.ID, mcp.GetTaskResult{Task: v1Task(s)})}
	case methodCancel:
		if s.Status.Terminal() {
			return inbound{reply: replyError(msg.ID, &RPCError{Code: codeInvalidParams,
				Message: "cannot cancel task " + quoteID(p.TaskID) + ": it is " + string(s.Status) + " already"})}
		}
		if t := m.running(p.TaskID); t != nil {
			m.cancel(t)
			<-t.done
		}
		s, _ = m.lookupFor(o, p.TaskID)
		return inbound{reply: reply(msg.ID, mcp.CancelTaskResult{Task: v1Task(s)})}
	}
	// tasks/result
	id := msg.ID
	return inbound{later: func(stop <-chan struct{}) []byte {
		if t := m.running(p.TaskID); t != nil {
			select {
			case <-t.done:
			case <-stop:
				return replyError(id, &RPCError{Code: mcp.REQUEST_INTERRUPTED, Message: "the request was interrupted"})
			}
		}
		s, ok := m.lookupFor(o, p.TaskID)
		if !ok {
			return replyError(id, &RPCError{Code: codeInvalidParams, Message: "task not found: " + quoteID(p.TaskID)})
		}
		return v1Result(id, s)
	}}
}

// v1Result is tasks/result's answer for the ended task s: its tool
// result, related to the task, or its error.
func v1Result(id json.RawMessage, s Snapshot) []byte {
	switch s.Status {
	case Completed:
		var r map[string]json.RawMessage
		if json.Unmarshal(s.Result, &r) != nil {
			return replyError(id, &RPCError{Code: codeInternal, Message: "the task's result could not be read"})
		}
		var meta map[string]any
		if r["_meta"] != nil {
			_ = json.Unmarshal(r["_meta"], &meta)
		}
		if meta == nil {
			meta = map[string]any{}
		}
		meta[mcp.RelatedTaskMetaKey] = map[string]any{"taskId": s.ID}
		r["_meta"], _ = json.Marshal(meta)
		delete(r, "resultType")
		return reply(id, r)
	case Failed:
		if s.Error != nil {
			return replyError(id, s.Error)
		}
		return replyError(id, &RPCError{Code: codeInternal, Message: s.Message})
	default:
		return replyError(id, &RPCError{Code: codeInternal, Message: "task " + quoteID(s.ID) + " was cancelled"})
	}
}

// snapshots returns the tasks of this process, oldest first.
func (m *Manager) snapshots() []Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Snapshot, 0, len(m.tasks))
	for _, t := range m.tasks {
		out = append(out, t.snapshot())
	}
	sortByCreated(out)
	return out
}
