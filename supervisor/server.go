package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/tmux"
)

// State is a supervised server's health state.
type State string

// States.
const (
	StateUnknown    State = "unknown"    // not contacted yet
	StateUp         State = "up"         // answering
	StateDown       State = "down"       // dead, no restart planned (NoStart, or attempts exhausted)
	StateRestarting State = "restarting" // dead, a restart is scheduled or running
	StateHung       State = "hung"       // alive but not answering within deadlines
	StateClosed     State = "closed"     // supervision ended
)

// Cause classifies why a server died or became unreachable.
type Cause string

// Causes.
const (
	CauseLastSession   Cause = "last_session_gone" // exit-empty: the last session closed
	CauseKilled        Cause = "killed"            // ended by a signal (SIGKILL, SIGTERM, OOM killer)
	CauseCrashed       Cause = "crashed"           // SIGSEGV/SIGABRT or fatal() exit status
	CauseSocketDeleted Cause = "socket_deleted"    // socket file gone, server alive
	CauseFDLivelock    Cause = "fd_livelock"       // near its fd limit and not answering
	CauseHung          Cause = "hung"              // alive, not answering (SIGSTOP, blocked write)
	CauseVersionSkew   Cause = "version_skew"      // client and server binaries differ
	CausePermission    Cause = "permission"        // socket directory or ACL problem
	CauseKillServer    Cause = "kill_server"       // tmux-mcp was asked to kill it
	CauseUnknown       Cause = "unknown"
)

// Server is one supervised tmux server.
type Server struct {
	cfg    Config
	sock   tmux.Socket
	client *tmux.Client
	bus    *bus

	mu    sync.Mutex
	state State
	pid   int
}

func newServer(cfg Config, sock tmux.Socket, b *bus) (*Server, error) {
	srv := &Server{cfg: cfg, sock: sock, bus: b, state: StateUnknown}
	c, err := tmux.NewClient(tmux.ClientOptions{
		Binary: cfg.Binary, Socket: sock, Config: cfg.TmuxConfig, Control: !cfg.ExecOnly,
	})
	if err != nil {
		return nil, err
	}
	srv.client = c
	return srv, nil
}

// Socket returns the socket this server is supervised on.
func (s *Server) Socket() tmux.Socket { return s.sock }

// ensure adopts a running server or starts one.
func (s *Server) ensure(ctx context.Context) error {
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	if st == StateUp {
		return nil
	}
	err := s.client.Connect(ctx)
	if err != nil && (errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrSocketMissing)) && !s.cfg.NoStart {
		if _, serr := s.client.Exec().StartServer(ctx, tmux.StartOptions{FDLimit: s.cfg.FDLimit}); serr != nil {
			return serr
		}
		err = s.client.Connect(ctx)
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.state = StateUp
	s.mu.Unlock()
	return nil
}

func (s *Server) close() error {
	s.mu.Lock()
	s.state = StateClosed
	s.mu.Unlock()
	return s.client.Close()
}

// Do runs one tmux command under supervision and returns its stdout.
func (s *Server) Do(ctx context.Context, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.CommandTimeout)
		defer cancel()
	}
	start := time.Now()
	tr := s.client.Transport()
	out, err := tr.Run(ctx, args...)
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	s.bus.emit(Event{Type: EventCommand, Socket: s.sock, Command: name, Transport: tr.Kind(),
		Duration: time.Since(start), ErrClass: tmux.ClassName(err)})
	return out, err
}

// ListSessions returns the server's sessions (the hidden one left out).
func (s *Server) ListSessions(ctx context.Context) ([]tmux.Session, error) {
	return s.client.ListSessions(ctx)
}

// ListWindows returns every window of every session.
func (s *Server) ListWindows(ctx context.Context) ([]tmux.Window, error) {
	return s.client.ListWindows(ctx)
}

// ListPanes returns every pane of every session.
func (s *Server) ListPanes(ctx context.Context) ([]tmux.Pane, error) {
	return s.client.ListPanes(ctx)
}

// Info returns the server's identity.
func (s *Server) Info(ctx context.Context) (tmux.ServerInfo, error) {
	return s.client.Info(ctx)
}

// Kill runs kill-server. The death that follows is classified as
// CauseKillServer and not restarted.
func (s *Server) Kill(ctx context.Context) error {
	_, err := s.Do(ctx, "kill-server")
	if err != nil && !tmux.IsServerDown(err) {
		return err
	}
	s.mu.Lock()
	s.state = StateDown
	s.mu.Unlock()
	s.client.ForgetServer()
	return nil
}

// CaptureRequest asks for a pane's contents.
type CaptureRequest struct {
	Pane tmux.PaneID
	// Start and End are line numbers as capture-pane takes them: 0 is the
	// first visible line, negative numbers reach into history. Nil Start is
	// the top of the visible screen; nil End is its bottom.
	Start, End *int
	// FullHistory asks for the whole history (-S -); it is capped like any
	// other range.
	FullHistory bool
	// MaxLines and MaxBytes cap the result (0: the configured defaults);
	// they may not exceed the configured ceilings.
	MaxLines, MaxBytes int
	Join, Escape       bool
}

// Capture is a pane's contents and how they were obtained.
type Capture struct {
	Content        []byte `json:"-"`
	Lines          int    `json:"lines"`
	Truncated      bool   `json:"truncated"`
	TruncatedLines int    `json:"truncated_lines,omitempty"`
	TruncatedBytes int    `json:"truncated_bytes,omitempty"`
	Cached         bool   `json:"cached"`
	// Freshness says how the cache decided: "watcher" (control-mode %output
	// tracking), "probe" (exec-only state probe), or "none" (not cached).
	Freshness string `json:"freshness"`
}

// Capture returns a pane's contents, capped.
func (s *Server) Capture(ctx context.Context, req CaptureRequest) (Capture, error) {
	opts := tmux.CaptureOptions{Target: string(req.Pane), Join: req.Join, Escape: req.Escape}
	if req.Start != nil {
		opts.Start = fmt.Sprint(*req.Start)
	}
	if req.End != nil {
		opts.End = fmt.Sprint(*req.End)
	}
	out, err := s.client.Capture(ctx, opts)
	if err != nil {
		return Capture{}, err
	}
	return Capture{Content: out, Freshness: "none"}, nil
}

// Health is a snapshot of a supervised server.
type Health struct {
	Socket         string    `json:"socket"`
	State          State     `json:"state"`
	PID            int       `json:"pid,omitempty"`
	Version        string    `json:"version,omitempty"`
	Transport      string    `json:"transport"`
	StartedAt      time.Time `json:"started_at,omitzero"`
	UptimeSeconds  float64   `json:"uptime_seconds"`
	Restarts       int       `json:"restarts"`
	LastDeathCause Cause     `json:"last_death_cause,omitempty"`
	LastDeathAt    time.Time `json:"last_death_at,omitzero"`
	FDs            int       `json:"fds"`
	FDLimit        uint64    `json:"fd_limit"`
	PTYs           int       `json:"ptys"`
	PTYMax         int       `json:"pty_max"`
	RSSBytes       uint64    `json:"rss_bytes"`
	Threads        int       `json:"threads"`
	CPUPercent     float64   `json:"cpu_percent"`
	CommandsPerSec float64   `json:"commands_per_sec"`
	Commands       uint64    `json:"commands"`
	CacheHits      uint64    `json:"cache_hits"`
	CacheHitRatio  float64   `json:"cache_hit_ratio"`
	RateLimited    uint64    `json:"rate_limited"`
}

// Health returns the server's current health snapshot. It makes no tmux call.
func (s *Server) Health() Health {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Health{Socket: s.sock.String(), State: s.state, PID: s.pid, Transport: s.client.Transport().Kind()}
}
