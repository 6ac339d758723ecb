package taskext

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

// inbound is what the layer makes of one message from the client.
type inbound struct {
	// reply answers the message; it is not passed on.
	reply []byte
	// pass is what goes on to mcp-go: the message, maybe rewritten.
	pass []byte
	// listen is a task subscription the layer serves itself.
	listen *listenRequest
	// discover: mcp-go's answer is a server/discover result of
	// 2026-07-28, whose capabilities lose mcp-go's 2025-11-25 tasks slot.
	discover bool
	// id is the message's request ID.
	id json.RawMessage
	// cancels is the request a notifications/cancelled names.
	cancels json.RawMessage
	// later answers the message once it can (2025-11-25's tasks/result,
	// which waits for the task's end), or at once when stop is closed.
	later func(stop <-chan struct{}) []byte
}

// listenRequest is a subscriptions/listen request for task states only.
type listenRequest struct {
	id    json.RawMessage
	ids   []string
	owner Owner // the caller: only its tasks are heard of
}

// interesting are the methods the layer looks at; any other message
// passes without being decoded.
var interesting = [][]byte{[]byte("tasks/"), []byte("tools/call"), []byte("subscriptions/listen"),
	[]byte("server/discover"), []byte("notifications/cancelled")}

// inbound decides what happens to raw, a message from the caller o; h
// are the HTTP request's headers (nil on stdio). The requests the layer
// answers have spans of their own, in ctx.
func (m *Manager) inbound(ctx context.Context, raw []byte, h http.Header, o Owner) inbound {
	pass := inbound{pass: raw}
	if !containsAny(raw, interesting) {
		return pass
	}
	var msg rpcMessage
	if err := json.Unmarshal(raw, &msg); err != nil || msg.Method == "" {
		return pass // mcp-go answers what it cannot parse
	}
	pass.id = msg.ID
	var rm requestMeta
	_ = json.Unmarshal(msg.Params, &rm)
	switch msg.Method {
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		pass.cancels = p.RequestID
		return pass
	case string(mcp.MethodServerDiscover):
		pass.discover = true
		return pass
	}
	if !modern(rm.Meta) {
		switch msg.Method {
		case string(mcp.MethodToolsCall):
			if !bytes.Contains(raw, []byte(`"task"`)) {
				return pass
			}
			return m.v1ToolsCall(msg, raw)
		case methodGet, methodResult, methodList, methodCancel:
			return traced(m.traceRequest(ctx, msg, rm.Meta, h, o), m.v1Method(msg, o))
		}
		return pass
	}
	switch msg.Method {
	case methodList, methodResult:
		return traced(m.traceRequest(ctx, msg, rm.Meta, h, o), inbound{reply: replyError(msg.ID, &RPCError{Code: codeMethodNotFound,
			Message: "Method " + msg.Method + " not found: protocol 2026-07-28 has no " + msg.Method + " (tasks/get inlines the result)"})})
	case methodGet, methodUpdate, methodCancel:
		end := m.traceRequest(ctx, msg, rm.Meta, h, o)
		return traced(end, inbound{reply: m.method(msg, rm.Meta, h, o)})
	case string(mcp.MethodToolsCall):
		return m.toolsCall(msg, rm.Meta, raw)
	case string(mcp.MethodSubscriptionsListen):
		return m.listenRequest(msg, rm.Meta, raw, o)
	}
	return pass
}

// traced ends the span of a request the layer answers with in once the
// answer is made.
func traced(end func(code int), in inbound) inbound {
	switch {
	case in.reply != nil:
		end(replyCode(in.reply))
	case in.later != nil:
		later := in.later
		in.later = func(stop <-chan struct{}) []byte {
			b := later(stop)
			end(replyCode(b))
			return b
		}
	default:
		end(0)
	}
	return in
}

func containsAny(b []byte, subs [][]byte) bool {
	for _, s := range subs {
		if bytes.Contains(b, s) {
			return true
		}
	}
	return false
}

// method answers tasks/get, tasks/update and tasks/cancel of the caller
// o.
func (m *Manager) method(msg rpcMessage, meta *mcp.Meta, h http.Header, o Owner) []byte {
	if len(msg.ID) == 0 {
		return nil // a notification gets no answer
	}
	var p struct {
		TaskID         *string                    `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		return replyError(msg.ID, &RPCError{Code: codeInvalidParams, Message: "Invalid params: " + err.Error()})
	}
	if h != nil {
		if got := h.Get(mcp.HeaderMethod); got != msg.Method {
			return replyError(msg.ID, &RPCError{Code: codeHeaderMismatch,
				Message: "Header mismatch: the Mcp-Method header must be " + msg.Method})
		}
		if p.TaskID == nil || h.Get(mcp.HeaderName) != *p.TaskID {
			return replyError(msg.ID, &RPCError{Code: codeHeaderMismatch,
				Message: "Header mismatch: the Mcp-Name header must be the request's params.taskId"})
		}
	}
	if !declared(meta) {
		return replyError(msg.ID, missingCapability())
	}
	if p.TaskID == nil || *p.TaskID == "" {
		return replyError(msg.ID, &RPCError{Code: codeInvalidParams, Message: "Invalid params: taskId is required"})
	}
	id := *p.TaskID
	s, ok := m.lookupFor(o, id)
	if !ok {
		return replyError(msg.ID, &RPCError{Code: codeInvalidParams, Message: "Failed to retrieve task: Task not found (or expired): " + quoteID(id)})
	}
	switch msg.Method {
	case methodGet:
		return reply(msg.ID, s.wire(mcp.ResultTypeComplete, true))
	case methodUpdate:
		if p.InputResponses == nil {
			return replyError(msg.ID, &RPCError{Code: codeInvalidParams, Message: "Invalid params: inputResponses must be an object"})
		}
		if t := m.running(id); t != nil {
			m.answer(t, p.InputResponses)
		}
	case methodCancel:
		if t := m.running(id); t != nil {
			m.cancel(t)
		}
	}
	return reply(msg.ID, ack{ResultType: mcp.ResultTypeComplete})
}

// quoteID shows an ID the client sent, bounded.
func quoteID(id string) string {
	if len(id) > 80 {
		id = id[:80] + "..."
	}
	b, _ := json.Marshal(id)
	return string(b)
}

// running returns task id if this process holds it.
func (m *Manager) running(id string) *task {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tasks[id]
}

// toolsCall checks a tools/call of 2026-07-28: a tool that must run as a
// task needs the extension; a 2025-11-25 task parameter is dropped (the
// server decides, and mcp-go would answer it with a task of the old
// shape).
func (m *Manager) toolsCall(msg rpcMessage, meta *mcp.Meta, raw []byte) inbound {
	if (declared(meta) || !m.anyRequired()) && !bytes.Contains(raw, []byte(`"task"`)) {
		return inbound{pass: raw, id: msg.ID}
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		return inbound{pass: raw, id: msg.ID}
	}
	var name string
	_ = json.Unmarshal(p["name"], &name)
	if !declared(meta) && m.isRequired(name) {
		return inbound{reply: replyError(msg.ID, missingCapability())}
	}
	if _, ok := p["task"]; !ok {
		return inbound{pass: raw, id: msg.ID}
	}
	delete(p, "task")
	params, err := json.Marshal(p)
	if err != nil {
		return inbound{pass: raw, id: msg.ID}
	}
	msg.Params = params
	out, err := json.Marshal(msg)
	if err != nil {
		return inbound{pass: raw, id: msg.ID}
	}
	return inbound{pass: out, id: msg.ID}
}

// listenRequest takes the task IDs of a subscriptions/listen request of
// the caller o. One that asks for task states only is served by the
// layer; one that asks for more goes on to mcp-go without its task IDs.
func (m *Manager) listenRequest(msg rpcMessage, meta *mcp.Meta, raw []byte, o Owner) inbound {
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	if err := json.Unmarshal(msg.Params, &p); err != nil || p.Notifications == nil {
		return inbound{pass: raw, id: msg.ID}
	}
	idsRaw, ok := p.Notifications["taskIds"]
	if !ok {
		return inbound{pass: raw, id: msg.ID}
	}
	if !declared(meta) {
		return inbound{reply: replyError(msg.ID, missingCapability())}
	}
	var ids []string
	if err := json.Unmarshal(idsRaw, &ids); err != nil {
		return inbound{reply: replyError(msg.ID, &RPCError{Code: codeInvalidParams, Message: "Invalid params: notifications.taskIds must be an array of strings"})}
	}
	if len(p.Notifications) == 1 {
		if len(msg.ID) == 0 {
			return inbound{}
		}
		return inbound{listen: &listenRequest{id: msg.ID, ids: ids, owner: o}, id: msg.ID}
	}
	// The rest is mcp-go's: the request goes on without taskIds, which
	// travel in a _meta key of the layer's to ListenHook.
	var full map[string]json.RawMessage
	if err := json.Unmarshal(msg.Params, &full); err != nil {
		return inbound{pass: raw, id: msg.ID}
	}
	delete(p.Notifications, "taskIds")
	full["notifications"], _ = json.Marshal(p.Notifications)
	var metaFields map[string]json.RawMessage
	if full["_meta"] != nil {
		_ = json.Unmarshal(full["_meta"], &metaFields)
	}
	if metaFields == nil {
		metaFields = map[string]json.RawMessage{}
	}
	metaFields[m.listenKey()], _ = json.Marshal(ids)
	full["_meta"], _ = json.Marshal(metaFields)
	msg.Params, _ = json.Marshal(full)
	out, err := json.Marshal(msg)
	if err != nil {
		return inbound{pass: raw, id: msg.ID}
	}
	return inbound{pass: out, id: msg.ID}
}

// acknowledged is the notification that opens a task subscription.
func acknowledged(id json.RawMessage, ids []string) []byte {
	if ids == nil {
		ids = []string{}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "method": string(mcp.MethodNotificationSubscriptionsAcknowledged),
		"params": map[string]any{"_meta": map[string]any{mcp.MetaKeySubscriptionID: id}, "notifications": map[string]any{"taskIds": ids}}})
	return b
}

// taskNotification is notifications/tasks for s on subscription id.
func taskNotification(id json.RawMessage, s Snapshot) []byte {
	w := s.wire("", true)
	w.Meta = map[string]any{mcp.MetaKeySubscriptionID: id}
	b, _ := json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "method": notificationTasks, "params": w})
	return b
}

// listenEnd is the result that closes a subscription.
func listenEnd(id json.RawMessage) []byte {
	return reply(id, map[string]any{"resultType": mcp.ResultTypeComplete, "_meta": map[string]any{mcp.MetaKeySubscriptionID: id}})
}

// serveListen acknowledges l, sends the current state of each task it
// names that exists and is its caller's, then each change until stop is
// closed; write sends one message.
func (m *Manager) serveListen(l *listenRequest, write func([]byte) error, stop <-chan struct{}) {
	var known []string
	var now []Snapshot
	for _, id := range l.ids {
		if s, ok := m.lookupFor(l.owner, id); ok {
			known = append(known, id)
			now = append(now, s)
		}
	}
	ch := make(chan Snapshot, 64)
	unsub := m.subscribe(known, func(s Snapshot) {
		select {
		case ch <- s:
		default: // a slow client polls
		}
	})
	defer unsub()
	if write(acknowledged(l.id, known)) != nil {
		return
	}
	for _, s := range now {
		if write(taskNotification(l.id, s)) != nil {
			return
		}
	}
	for {
		select {
		case <-stop:
			return
		case s := <-ch:
			if write(taskNotification(l.id, s)) != nil {
				return
			}
		}
	}
}

// outbound rewrites a message mcp-go sends: the placeholder of a
// detached call becomes its CreateTaskResult; a server/discover result
// of 2026-07-28 (discover) loses the 2025-11-25 tasks capability.
func (m *Manager) outbound(msg []byte, discover bool, sc *scope) []byte {
	if sc != nil && bytes.Contains(msg, []byte(mcp.MethodNotificationSubscriptionsAcknowledged)) {
		msg = sc.acknowledged(msg)
	}
	if bytes.Contains(msg, []byte(m.placeholder)) && bytes.Contains(msg, []byte(notificationTasks)) {
		if out, ok := m.tagged(msg); ok {
			return out
		}
	}
	if bytes.Contains(msg, []byte(m.placeholder)) {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &r) == nil && r.Result.Meta[m.placeholder] != nil {
			var e RPCError
			if json.Unmarshal(r.Result.Meta[m.placeholder], &e) == nil && e.Code != 0 {
				return replyError(r.ID, &e)
			}
			var v1 struct {
				ID string `json:"v1"`
			}
			if json.Unmarshal(r.Result.Meta[m.placeholder], &v1) == nil && v1.ID != "" {
				if s, ok := m.lookup(v1.ID); ok {
					return reply(r.ID, mcp.CreateTaskResult{Task: v1Task(s)})
				}
			}
			var id string
			if json.Unmarshal(r.Result.Meta[m.placeholder], &id) == nil {
				if s, ok := m.lookup(id); ok {
					return reply(r.ID, s.wire("task", false))
				}
			}
		}
	}
	if discover {
		var r map[string]json.RawMessage
		if json.Unmarshal(msg, &r) != nil || r["result"] == nil {
			return msg
		}
		var res map[string]json.RawMessage
		if json.Unmarshal(r["result"], &res) != nil || res["capabilities"] == nil {
			return msg
		}
		var caps map[string]json.RawMessage
		if json.Unmarshal(res["capabilities"], &caps) != nil || caps["tasks"] == nil {
			return msg
		}
		delete(caps, "tasks")
		res["capabilities"], _ = json.Marshal(caps)
		r["result"], _ = json.Marshal(res)
		if out, err := json.Marshal(r); err == nil {
			return out
		}
	}
	return msg
}
