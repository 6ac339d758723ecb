package taskext

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/jobrecord"
)

// Defaults of [Options].
const (
	// DefaultBudget is how long a call may run before it becomes a task.
	// Half a second: most reads, waits already met and short commands
	// answer at once, without the round trips of a task; anything longer
	// is work an agent should not sit and wait for.
	DefaultBudget = 500 * time.Millisecond
	// DefaultTTL is how long a task is kept after it was created, unless
	// its client asks for another time (2025-11-25's params.task.ttl).
	DefaultTTL = time.Hour
	// DefaultMaxTTL is the longest a client may ask a task to be kept: a
	// day, past any call's timeout. A longer TTL asked for is cut to it,
	// and the task's ttl says so.
	DefaultMaxTTL = 24 * time.Hour
	// DefaultMaxTasks bounds the tasks held, running ones included: as
	// many as the jobs keep ended commands. Beyond it, the oldest ended
	// task is forgotten; when every task held is running, a call does not
	// become one and answers when it ends, as without tasks.
	DefaultMaxTasks = 200
	// DefaultPollInterval is the polling interval clients are asked to
	// keep (notifications/tasks tells them sooner).
	DefaultPollInterval = time.Second
)

// Options configure a [Manager].
type Options struct {
	Budget time.Duration
	// TTL is a task's TTL when its client asks for none; MaxTTL the
	// longest one may ask for.
	TTL, MaxTTL  time.Duration
	PollInterval time.Duration
	// MaxTasks bounds the tasks held (DefaultMaxTasks).
	MaxTasks int
	// Tracer traces tasks and the layer's requests; nil: none.
	Tracer Tracer
	// Store records tasks; nil keeps them in this process only.
	Store Store
	// Log hears of tasks that could not be recorded; nil discards.
	Log *slog.Logger
	// Lost tells a tool result that says the call's world went away (its
	// tmux server died) from any other: such a task fails, with why, as
	// after a crash, instead of completing with the tool's error. nil:
	// none is.
	Lost func(*mcp.CallToolResult) (why string, lost bool)
}

// Store records tasks. tmux-mcp's is the job table: a task is a job.
type Store interface {
	// Create records a new task of the call req, made by the caller
	// owner (Owner.Key), and returns its ID, which must be unguessable
	// (whoever holds the credential of a sessionless caller may ask for
	// it). ctl is how the store's own users act on it: stop_job cancels
	// it, a death of what it works on fails it. The task is found by
	// lookups once Create returns; the store's own views of it show it to
	// its owner only.
	Create(ctx context.Context, req mcp.CallToolRequest, owner string, ctl Control) (string, error)
	// Save records a change of a task's state.
	Save(s Snapshot)
	// Load returns a task this process does not hold: one an earlier
	// tmux-mcp process recorded.
	Load(id string) (Snapshot, bool)
}

// Control acts on a task from outside the protocol.
type Control struct {
	// Stop cancels the task.
	Stop func()
	// Fail ends the task failed (an internal error saying why) and
	// cancels its call.
	Fail func(why string)
}

// Manager holds the tasks of this process and serves the extension.
type Manager struct {
	opts Options
	log  *slog.Logger
	// placeholder is the _meta key of the result that stands for a
	// detached call until the transport layer replaces it: random, so no
	// tool output can forge it.
	placeholder string

	mu       sync.Mutex
	srv      *server.MCPServer // set by Adapt
	tasks    map[string]*task
	creating int // tasks being created: held already, for the bound
	required map[string]bool
	subs     map[*subscriber]struct{}
}

// New returns a Manager.
func New(opts Options) *Manager {
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.MaxTTL <= 0 {
		opts.MaxTTL = DefaultMaxTTL
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	opts.TTL = min(opts.TTL, opts.MaxTTL)
	if opts.MaxTasks <= 0 {
		opts.MaxTasks = DefaultMaxTasks
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var b [12]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	return &Manager{opts: opts, log: log, placeholder: "io.github.tmux-mcp/task-" + hex.EncodeToString(b[:]),
		tasks: map[string]*task{}, required: map[string]bool{}, subs: map[*subscriber]struct{}{}}
}

// ServerOptions are the mcp-go options the extension needs: it is
// advertised under capabilities.extensions (server/discover of
// 2026-07-28, and initialize), and mcp-go's own tasks of 2025-11-25 are
// on for older clients.
func (m *Manager) ServerOptions() []server.ServerOption {
	return []server.ServerOption{
		server.WithExtensions(map[string]any{Extension: map[string]any{}}),
		server.WithTaskCapabilities(true, true, true),
		server.WithToolHandlerMiddleware(m.Middleware),
	}
}

// Adapt adapts the tools registered on s: a tool whose task support is
// required is registered as optional, because mcp-go refuses a call to a
// required tool that carries no 2025-11-25 task parameter, which a
// 2026-07-28 call never does; tools/list still says required (ListHook).
// Call it again after adding tools.
func (m *Manager) Adapt(s *server.MCPServer) {
	m.mu.Lock()
	m.srv = s
	m.mu.Unlock()
	for name, t := range s.ListTools() {
		if t.Tool.Execution == nil || t.Tool.Execution.TaskSupport != mcp.TaskSupportRequired {
			continue
		}
		m.mu.Lock()
		m.required[name] = true
		m.mu.Unlock()
		tool := t.Tool
		exec := *tool.Execution
		exec.TaskSupport = mcp.TaskSupportOptional
		tool.Execution = &exec
		s.AddTool(tool, t.Handler)
	}
}

// ListHook makes tools/list show the task support Adapt changed.
func (m *Manager) ListHook(hooks *server.Hooks) {
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		m.mu.Lock()
		defer m.mu.Unlock()
		res.Tools = slices.Clone(res.Tools)
		for i, t := range res.Tools {
			if m.required[t.Name] {
				exec := mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
				if t.Execution != nil {
					exec = *t.Execution
					exec.TaskSupport = mcp.TaskSupportRequired
				}
				res.Tools[i].Execution = &exec
			}
		}
	})
}

// toolSupports reports whether the tool name may become a task.
func (m *Manager) toolSupports(name string) bool {
	m.mu.Lock()
	s := m.srv
	m.mu.Unlock()
	if s == nil {
		return false
	}
	return taskSupport(s.GetTool(name))
}

func taskSupport(t *server.ServerTool) bool {
	if t == nil || t.Tool.Execution == nil {
		return false
	}
	ts := t.Tool.Execution.TaskSupport
	return ts == mcp.TaskSupportOptional || ts == mcp.TaskSupportRequired
}

// sortByCreated sorts s oldest first.
func sortByCreated(s []Snapshot) {
	slices.SortFunc(s, func(a, b Snapshot) int { return a.Created.Compare(b.Created) })
}

func (m *Manager) anyRequired() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.required) > 0
}

func (m *Manager) isRequired(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.required[name]
}

// task is a task this process runs.
type task struct {
	snap   Snapshot
	cancel context.CancelFunc
	// cancelled: tasks/cancel or stop_job asked; the task ends cancelled
	// whatever its call returns.
	cancelled bool
	// issued are the input keys ever issued (a key is never reused);
	// pending maps an outstanding key to the handler's key; answers holds
	// the responses given so far, by the handler's key.
	issued  map[string]bool
	pending map[string]string
	answers map[string]json.RawMessage
	wake    chan struct{} // signalled when an answer arrives
	done    chan struct{}
	// expire forgets the ended task once its TTL is past.
	expire *time.Timer
	// ctx is the context of the call (its span, for the spans of the
	// task's requests); endSpan ends the call's span with the task's
	// outcome (Tracer.Detach).
	ctx     context.Context
	endSpan func(Outcome)
}

// create records a new task for req, working.
func (m *Manager) create(ctx context.Context, req mcp.CallToolRequest, ttl time.Duration, cancel context.CancelFunc) (*task, error) {
	t := &task{cancel: cancel, issued: map[string]bool{}, pending: map[string]string{},
		answers: map[string]json.RawMessage{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	ctl := Control{Stop: func() { m.cancel(t) }, Fail: func(why string) { m.fail(t, why) }}
	owner := OwnerOf(ctx).Key
	m.mu.Lock()
	if !m.makeRoom() {
		held := len(m.tasks)
		m.mu.Unlock()
		return nil, fmt.Errorf("taskext: %d tasks are held, all of them running: the call answers when it ends", held)
	}
	m.creating++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.creating--
		m.mu.Unlock()
	}()
	var id string
	if m.opts.Store != nil {
		var err error
		if id, err = m.opts.Store.Create(ctx, req, owner, ctl); err != nil {
			return nil, err
		}
	} else {
		var b [16]byte
		rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
		id = "t" + hex.EncodeToString(b[:])
	}
	t.ctx = context.WithoutCancel(ctx)
	if m.opts.Tracer != nil {
		t.endSpan = m.opts.Tracer.Detach(ctx, id)
	}
	now := time.Now()
	if ttl <= 0 {
		ttl = m.opts.TTL
	}
	ttl = min(ttl, m.opts.MaxTTL)
	t.snap = Snapshot{ID: id, Created: now, Updated: now, Call: jobrecord.Call{Tool: req.Params.Name, Status: Working,
		TTL: ttl, PollInterval: m.opts.PollInterval, Owner: owner}}
	m.mu.Lock()
	m.tasks[id] = t
	m.mu.Unlock()
	m.changed(t)
	return t, nil
}

// makeRoom makes room for one more task within the bound: it forgets the
// oldest ended tasks as needed, and reports false when every task held
// runs. Called with m.mu held.
func (m *Manager) makeRoom() bool {
	for len(m.tasks)+m.creating >= m.opts.MaxTasks {
		var oldest *task
		for _, t := range m.tasks {
			if t.snap.Status.Terminal() && (oldest == nil || t.snap.Created.Before(oldest.snap.Created)) {
				oldest = t
			}
		}
		if oldest == nil {
			return false
		}
		m.forget(oldest)
	}
	return true
}

// forget drops the ended task t; called with m.mu held.
func (m *Manager) forget(t *task) {
	if m.tasks[t.snap.ID] == t {
		delete(m.tasks, t.snap.ID)
	}
	if t.expire != nil {
		t.expire.Stop()
	}
}

// changed records and announces t's state; called without m.mu.
func (m *Manager) changed(t *task) {
	m.mu.Lock()
	s := t.snapshot()
	m.mu.Unlock()
	if m.opts.Store != nil {
		m.opts.Store.Save(s)
	}
	m.notify(s)
}

// snapshot copies t's state; called with m.mu held.
func (t *task) snapshot() Snapshot {
	s := t.snap
	if len(t.pending) > 0 {
		s.Inputs = make(map[string]json.RawMessage, len(t.pending))
		for k := range t.pending {
			s.Inputs[k] = t.snap.Inputs[k]
		}
	}
	return s
}

// lookupFor returns the state of task id if it is the caller o's; a
// task of another caller is not found, as one that never existed.
func (m *Manager) lookupFor(o Owner, id string) (Snapshot, bool) {
	s, ok := m.lookup(id)
	if !ok || !o.Sees(s.Owner) {
		return Snapshot{}, false
	}
	return s, true
}

// lookup returns the state of task id, whoever's it is: one of this
// process, or one an earlier process recorded. A task past its TTL is
// gone.
func (m *Manager) lookup(id string) (Snapshot, bool) {
	m.mu.Lock()
	t := m.tasks[id]
	var s Snapshot
	if t != nil {
		s = t.snapshot()
	}
	m.mu.Unlock()
	if t == nil {
		if m.opts.Store == nil {
			return Snapshot{}, false
		}
		var ok bool
		if s, ok = m.opts.Store.Load(id); !ok {
			return Snapshot{}, false
		}
	}
	if s.TTL > 0 && s.Status.Terminal() && time.Since(s.Created) > s.TTL {
		return Snapshot{}, false
	}
	return s, true
}

// cancel asks t to stop: its call's context is cancelled and the task
// ends cancelled. It reports false when t had ended already.
func (m *Manager) cancel(t *task) bool {
	m.mu.Lock()
	if t.snap.Status.Terminal() {
		m.mu.Unlock()
		return false
	}
	t.cancelled = true
	cancel := t.cancel
	m.mu.Unlock()
	cancel()
	return true
}

// finish ends t with what its call returned.
func (m *Manager) finish(t *task, res *mcp.CallToolResult, err error) {
	m.mu.Lock()
	if t.snap.Status.Terminal() {
		m.mu.Unlock()
		return
	}
	t.snap.Updated = time.Now()
	t.pending = map[string]string{}
	switch {
	case t.cancelled:
		t.snap.Status, t.snap.Message = Cancelled, "cancelled at the client's request"
	case err != nil:
		t.snap.Status = Failed
		t.snap.Error = asRPCError(err)
		t.snap.Message = t.snap.Error.Message
		var lost lostError
		t.snap.Lost = errors.As(err, &lost)
	case res != nil && m.lostResult(res) != "":
		why := m.lostResult(res)
		t.snap.Status, t.snap.Lost, t.snap.Message = Failed, true, why
		t.snap.Error = &RPCError{Code: codeInternal, Message: why}
	default:
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		res.ResultType = mcp.ResultTypeComplete
		b, merr := json.Marshal(res)
		if merr != nil {
			t.snap.Status, t.snap.Error = Failed, &RPCError{Code: codeInternal, Message: "the result could not be encoded: " + merr.Error()}
			t.snap.Message = t.snap.Error.Message
			break
		}
		t.snap.Status, t.snap.Result = Completed, b
		if res.IsError {
			t.snap.Message = "the tool reported an error"
		}
	}
	close(t.done)
	if ttl := t.snap.TTL; ttl > 0 {
		t.expire = time.AfterFunc(ttl-time.Since(t.snap.Created), func() {
			m.mu.Lock()
			m.forget(t)
			m.mu.Unlock()
		})
	}
	end, out := t.endSpan, t.outcome(res)
	t.endSpan = nil
	m.mu.Unlock()
	m.changed(t)
	if end != nil {
		end(out)
	}
}
