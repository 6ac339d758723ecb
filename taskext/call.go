package taskext

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Call is a tool call that may become a task. A handler finds it with
// [From]; it is nil when the call cannot become one (the client did not
// declare the extension, or the tool does not support tasks).
type Call struct {
	m      *Manager
	req    mcp.CallToolRequest
	detach chan struct{} // closed when the handler asks to be a task now
	once   sync.Once

	mu    sync.Mutex
	task  *task         // set once the call became a task
	ready chan struct{} // closed when task is set (or the call ended)
	// detaching: the middleware is making the call a task; answered:
	// the handler's result answers the call (it asked for input before
	// the call was a task), so it will not become one.
	detaching, answered bool
	// v1: a task of protocol 2025-11-25, which asks for input apart.
	v1 bool
}

type callKey struct{}

// From returns the call ctx runs in, or nil.
func From(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// Detach makes the call a task now, without waiting for the budget: for
// a handler that knows its work is long.
func (c *Call) Detach() {
	if c != nil {
		c.once.Do(func() { close(c.detach) })
	}
}

// Task returns the ID of the task the call became, "" while it is not
// one.
func (c *Call) Task() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.task == nil {
		return ""
	}
	return c.task.snap.ID
}

// Input asks the client for the answers to requests (keyed as the handler
// likes) through the task: the call becomes a task if it was not one, the
// task is input_required until tasks/update has answered every request,
// and Input returns the answers by the same keys.
func (c *Call) Input(ctx context.Context, requests mcp.InputRequests) (mcp.InputResponses, error) {
	if c.v1 {
		return nil, errors.New("taskext: a task of protocol 2025-11-25 cannot ask the client for input; protocol 2026-07-28 can")
	}
	c.Detach()
	t, err := c.awaitTask(ctx)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, errors.New("taskext: the call could not become a task")
	}
	return c.m.askFor(ctx, t, requests)
}

// awaitTask waits until the middleware has decided, once the call is to
// become a task, and returns the task (nil: it could not be created).
func (c *Call) awaitTask(ctx context.Context) (*task, error) {
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.task, nil
}

// askFor parks t as input_required with requests until all are answered
// and returns the answers, decoded for them.
func (m *Manager) askFor(ctx context.Context, t *task, requests mcp.InputRequests) (mcp.InputResponses, error) {
	raw := make(map[string]json.RawMessage, len(requests))
	for k, r := range requests {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		raw[k] = b
	}
	answers, err := m.ask(ctx, t, raw)
	if err != nil {
		return nil, err
	}
	out := make(mcp.InputResponses, len(answers))
	for k, b := range answers {
		var r mcp.InputResponse
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, err
		}
		out[k] = r
	}
	if err := out.DecodeFor(requests); err != nil {
		return nil, err
	}
	return out, nil
}

// supports reports whether the tool of req may become a task.
func supports(ctx context.Context, name string) bool {
	s := server.ServerFromContext(ctx)
	return s != nil && taskSupport(s.GetTool(name))
}

// v1Request returns the TTL a 2025-11-25 client asked for (0: the
// default) and whether req is such a call (the layer marked it).
func (m *Manager) v1Request(req mcp.CallToolRequest) (time.Duration, bool) {
	if req.Params.Meta == nil || req.Params.Meta.AdditionalFields == nil {
		return 0, false
	}
	v, ok := req.Params.Meta.AdditionalFields[m.v1Mark()]
	if !ok {
		return 0, false
	}
	var mark struct {
		TTL int64 `json:"ttl"`
	}
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &mark)
	}
	return time.Duration(mark.TTL) * time.Millisecond, true
}

// Middleware runs the calls of 2026-07-28 clients that declared the
// extension to task-supporting tools so that they can become tasks: the
// handler runs apart from the request; if it ends within the budget its
// result is the call's, else (or when it detaches or asks for input) the
// call answers with a placeholder that the transport layer turns into
// the CreateTaskResult, and the handler runs on as the task.
func (m *Manager) Middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if ttl, v1 := m.v1Request(req); v1 {
			res, err := m.run(ctx, req, next, true, ttl)
			return m.coded(res, err)
		}
		if !modern(req.Params.Meta) || !declared(req.Params.Meta) || !supports(ctx, req.Params.Name) {
			res, err := next(ctx, req)
			return m.coded(res, err)
		}
		res, err := m.run(ctx, req, next, false, 0)
		return m.coded(res, err)
	}
}

// coded passes on what a handler returned, but an error that says its
// JSON-RPC code (a missing client capability, say): mcp-go would answer
// any error as an internal one, so the error travels as a placeholder
// that the transport layer turns into the JSON-RPC error.
func (m *Manager) coded(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	var c codedError
	if err == nil || !errors.As(err, &c) || c.JSONRPCCode() == codeInternal {
		return res, err
	}
	e := asRPCError(err)
	b, merr := json.Marshal(e)
	if merr != nil {
		return res, err
	}
	return &mcp.CallToolResult{Result: mcp.Result{Meta: mcp.NewMetaFromMap(map[string]any{m.placeholder: json.RawMessage(b)})}}, nil
}

type outcome struct {
	res *mcp.CallToolResult
	err error
}

// run runs req's handler apart; v1: a 2025-11-25 client asked for a task
// (of ttl), which it gets at once.
func (m *Manager) run(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, v1 bool, ttl time.Duration) (*mcp.CallToolResult, error) {
	// A task has no progress stream: progress and log notifications of
	// the request would outlive it.
	if req.Params.Meta != nil {
		meta := *req.Params.Meta
		meta.ProgressToken = nil
		req.Params.Meta = &meta
	}
	c := &Call{m: m, req: req, detach: make(chan struct{}), ready: make(chan struct{}), v1: v1}
	if v1 {
		c.Detach()
	}
	tctx, cancel := context.WithCancel(context.WithValue(context.WithoutCancel(ctx), callKey{}, c))
	done := make(chan outcome, 1)
	go func() {
		res, err := m.loop(tctx, c, req, next)
		done <- outcome{res, err}
	}()
	budget := time.NewTimer(m.opts.Budget)
	defer budget.Stop()
	// ended holds the outcome of a handler that asked to become a task
	// (Detach) and ended before the select below saw the request: it is a
	// task all the same (which of the two ready cases select takes is
	// chance).
	var ended *outcome
	select {
	case o := <-done:
		if !closed(c.detach) {
			cancel()
			return o.res, o.err
		}
		ended = &o
	case <-ctx.Done():
		cancel()
		o := <-done
		return o.res, o.err
	case <-budget.C:
	case <-c.detach:
	}
	// outcome waits for the handler's end, unless it came already.
	outcome := func() outcome {
		if ended != nil {
			return *ended
		}
		return <-done
	}
	c.mu.Lock()
	if c.answered {
		c.mu.Unlock()
		o := outcome()
		cancel()
		return o.res, o.err
	}
	c.detaching = true
	c.mu.Unlock()
	t, err := m.create(ctx, req, ttl, cancel)
	if err != nil {
		// No task: the call answers when its handler does.
		close(c.ready)
		if ended != nil {
			cancel()
			return ended.res, ended.err
		}
		select {
		case o := <-done:
			cancel()
			return o.res, o.err
		case <-ctx.Done():
			cancel()
			o := <-done
			return o.res, o.err
		}
	}
	c.mu.Lock()
	c.task = t
	c.mu.Unlock()
	close(c.ready)
	go func() {
		o := outcome()
		cancel()
		m.finish(t, o.res, o.err)
	}()
	if v1 {
		return m.placeholderResult(map[string]string{"v1": t.snap.ID}), nil
	}
	return m.placeholderResult(t.snap.ID), nil
}

// loop runs the handler; a result that asks for input (a multi round-trip
// result) once the call is a task parks the task as input_required and
// runs the handler again with the answers, as the client would have
// retried the call.
func (m *Manager) loop(ctx context.Context, c *Call, req mcp.CallToolRequest, next server.ToolHandlerFunc) (res *mcp.CallToolResult, err error) {
	for {
		res, err = safe(ctx, req, next)
		if err != nil || res == nil || !res.NeedsInput() {
			return res, err
		}
		c.mu.Lock()
		if !c.detaching && !closed(c.detach) {
			// Not a task: the client answers by retrying the call.
			c.answered = true
			c.mu.Unlock()
			return res, nil
		}
		c.mu.Unlock()
		t, err := c.awaitTask(ctx)
		if err != nil {
			return nil, err
		}
		if t == nil {
			return res, nil // the task could not be created: the call answers
		}
		resp, err := m.askFor(ctx, t, res.InputRequests)
		if err != nil {
			return nil, err
		}
		req.Params.InputResponses = resp
		req.Params.RequestState = res.RequestState
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// safe runs next, turning a panic into an error.
func safe(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc) (res *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, panicError{v}
		}
	}()
	return next(ctx, req)
}

// placeholderResult stands for the CreateTaskResult of task id until the
// transport layer replaces it.
func (m *Manager) placeholderResult(id any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Result: mcp.Result{Meta: mcp.NewMetaFromMap(map[string]any{m.placeholder: id})}}
}
