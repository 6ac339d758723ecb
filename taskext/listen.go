package taskext

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A subscriptions/listen that asks for task states together with other
// notifications (the ext-tasks client adds its taskIds to whatever filter
// its host listens with) is mcp-go's to serve: the layer takes the task
// IDs off the request, into a _meta key of its own (listenKey), and
// ListenHook, which runs in mcp-go's handler of the request, sends the
// tasks' notifications through the request's session. The transport
// layer then adds the task IDs to the acknowledgement and tags each task
// notification with the subscription: a scope per stream (stdio) or per
// request (HTTP) carries what it needs from the hook.

// listenKey is the _meta key that carries a listen's task IDs to the
// hook.
func (m *Manager) listenKey() string { return m.placeholder + "/taskIds" }

// subKey is the params key that carries a task notification's
// subscription ID to the transport layer, which makes it _meta.
func (m *Manager) subKey() string { return m.placeholder + "/subscription" }

// scope is what the hook tells the transport layer of a stream.
type scope struct {
	mu sync.Mutex
	// acks are the task IDs accepted by a listen, by its request ID
	// (JSON), until its acknowledgement went out; acked is closed then.
	acks  map[string][]string
	acked map[string]chan struct{}
}

func newScope() *scope {
	return &scope{acks: map[string][]string{}, acked: map[string]chan struct{}{}}
}

type scopeKey struct{}

// withScope returns ctx carrying sc, for the hook.
func withScope(ctx context.Context, sc *scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, sc)
}

// accept notes that the listen id accepted ids; the returned channel is
// closed once its acknowledgement went out.
func (sc *scope) accept(id string, ids []string) <-chan struct{} {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.acks[id] = ids
	c := make(chan struct{})
	sc.acked[id] = c
	return c
}

// forget drops what accept noted, if the acknowledgement never went out.
func (sc *scope) forget(id string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	delete(sc.acks, id)
	delete(sc.acked, id)
}

// acknowledged adds the accepted task IDs to the acknowledgement msg.
func (sc *scope) acknowledged(msg []byte) []byte {
	var n struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &n) != nil || n.Method != string(mcp.MethodNotificationSubscriptionsAcknowledged) {
		return msg
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(n.Params["_meta"], &meta)
	id := string(meta[mcp.MetaKeySubscriptionID])
	sc.mu.Lock()
	ids, ok := sc.acks[id]
	done := sc.acked[id]
	delete(sc.acks, id)
	delete(sc.acked, id)
	sc.mu.Unlock()
	if !ok {
		return msg
	}
	var notes map[string]json.RawMessage
	_ = json.Unmarshal(n.Params["notifications"], &notes)
	if notes == nil {
		notes = map[string]json.RawMessage{}
	}
	if ids == nil {
		ids = []string{}
	}
	notes["taskIds"], _ = json.Marshal(ids)
	n.Params["notifications"], _ = json.Marshal(notes)
	out, err := json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "method": n.Method, "params": n.Params})
	if err != nil {
		return msg
	}
	// The task notifications wait for this one: let them go once it is
	// written (the caller writes it next).
	defer close(done)
	return out
}

// ListenHook makes mcp-go's subscriptions/listen send the notifications of
// the tasks the layer took off the request.
func (m *Manager) ListenHook(hooks *server.Hooks) {
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, id any, req *mcp.SubscriptionsListenRequest) {
		if req.Params.Meta == nil || req.Params.Meta.AdditionalFields == nil {
			return
		}
		raw, ok := req.Params.Meta.AdditionalFields[m.listenKey()]
		sc, _ := ctx.Value(scopeKey{}).(*scope)
		s := server.ServerFromContext(ctx)
		if !ok || sc == nil || s == nil {
			return
		}
		var ids []string
		if b, err := json.Marshal(raw); err == nil {
			_ = json.Unmarshal(b, &ids)
		}
		idJSON, err := json.Marshal(id)
		if err != nil {
			return
		}
		var known []string
		var now []Snapshot
		o := OwnerOf(ctx)
		for _, tid := range ids {
			if snap, ok := m.lookupFor(o, tid); ok {
				known = append(known, tid)
				now = append(now, snap)
			}
		}
		acked := sc.accept(string(idJSON), known)
		send := func(snap Snapshot) {
			params := map[string]any{}
			b, _ := json.Marshal(snap.wire("", true))
			_ = json.Unmarshal(b, &params)
			params[m.subKey()] = json.RawMessage(idJSON)
			_ = s.SendNotificationToClient(ctx, notificationTasks, params)
		}
		ch := make(chan Snapshot, 64)
		unsub := m.subscribe(known, func(snap Snapshot) {
			select {
			case ch <- snap:
			default: // a slow client polls
			}
		})
		go func() {
			defer unsub()
			select {
			case <-acked:
			case <-ctx.Done():
				sc.forget(string(idJSON))
				return
			}
			for _, snap := range now {
				send(snap)
			}
			for {
				select {
				case <-ctx.Done():
					return
				case snap := <-ch:
					send(snap)
				}
			}
		}()
	})
}

// tagged turns the layer's subscription key of a task notification into
// _meta's subscription ID; ok is false when msg is not one.
func (m *Manager) tagged(msg []byte) ([]byte, bool) {
	var n struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &n) != nil || n.Method != notificationTasks || n.Params[m.subKey()] == nil {
		return nil, false
	}
	sub := n.Params[m.subKey()]
	delete(n.Params, m.subKey())
	var meta map[string]json.RawMessage
	if n.Params["_meta"] != nil {
		_ = json.Unmarshal(n.Params["_meta"], &meta)
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	if meta[mcp.MetaKeySubscriptionID] == nil {
		meta[mcp.MetaKeySubscriptionID] = sub
	}
	n.Params["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "method": n.Method, "params": n.Params})
	if err != nil {
		return nil, false
	}
	return out, true
}
