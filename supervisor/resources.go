package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"go.opentelemetry.io/otel/attribute"
)

// ErrResourceExhausted matches the error of a call refused because the
// server is close to running out of file descriptors or PTYs.
var ErrResourceExhausted = errors.New("supervisor: resource exhausted")

// ResourceExhaustedError is a pane-creating call refused before the server
// runs out of a resource (an fd-exhausted server livelocks for good).
type ResourceExhaustedError struct {
	Resource    string // "fds" or "ptys"
	Used, Limit uint64
}

func (e *ResourceExhaustedError) Error() string {
	pct := int(100 * proc.Ratio(e.Used, e.Limit))
	switch e.Resource {
	case resFDs:
		return fmt.Sprintf("refusing to create panes: tmux server has %d of %d file descriptors open (%d%%); close panes or raise the limit",
			e.Used, e.Limit, pct)
	case resPTYs:
		return fmt.Sprintf("refusing to create panes: %d of %d pseudo-terminals are in use on this system (%d%%); close panes or raise kernel.pty.max",
			e.Used, e.Limit, pct)
	}
	return fmt.Sprintf("refusing to create panes: %s at %d of %d (%d%%)", e.Resource, e.Used, e.Limit, pct)
}

// Is matches ErrResourceExhausted.
func (e *ResourceExhaustedError) Is(target error) bool { return target == ErrResourceExhausted }

// Resource names, as in Event.Resource.
const (
	resFDs   = "fds"
	resPTYs  = "ptys"
	resFiles = "files"
)

// resourceLevel is one resource's use against its limit.
type resourceLevel struct {
	Resource    string
	Used, Limit uint64
	Ratio       float64
}

// evaluateResources compares a sample with the warning and refusal
// thresholds (fractions of the limit). It returns the resources at or above
// warn, and a *ResourceExhaustedError for the first of fds and PTYs at or
// above refuse. System-wide file handles only warn. It is pure.
func evaluateResources(r proc.Resources, warn, refuse float64) (warnings []resourceLevel, refuseErr error) {
	levels := []resourceLevel{
		{Resource: resFDs, Used: uint64(r.FDs), Limit: r.FDLimit},
		{Resource: resPTYs, Used: uint64(r.PTYs), Limit: uint64(r.PTYMax)},
		{Resource: resFiles, Used: r.FilesAllocated, Limit: r.FilesMax},
	}
	for _, l := range levels {
		l.Ratio = proc.Ratio(l.Used, l.Limit)
		if l.Ratio == 0 {
			continue
		}
		if l.Ratio >= warn {
			warnings = append(warnings, l)
		}
		if refuseErr == nil && l.Ratio >= refuse && l.Resource != resFiles {
			refuseErr = &ResourceExhaustedError{Resource: l.Resource, Used: l.Used, Limit: l.Limit}
		}
	}
	return warnings, refuseErr
}

// paneCreators are the tmux commands (and aliases) that allocate a PTY and
// an fd in the server.
var paneCreators = []struct{ name, alias string }{
	{"new-session", "new"},
	{"new-window", "neww"},
	{"split-window", "splitw"},
	{"respawn-pane", "respawnp"},
	{"respawn-window", "respawnw"},
}

// createsPane reports whether a tmux command line (arguments without the
// binary and socket flags, possibly several commands separated by ";")
// would create a pane. tmux accepts any unambiguous prefix of a command
// name, so prefixes count too; an ambiguous prefix would fail in tmux
// anyway.
func createsPane(args []string) bool {
	cmdStart := true
	for _, a := range args {
		if cmdStart && isPaneCreator(a) {
			return true
		}
		cmdStart = a == ";" || strings.HasSuffix(a, ";") && !strings.HasSuffix(a, `\;`)
	}
	return false
}

func isPaneCreator(name string) bool {
	name = strings.TrimSuffix(name, ";")
	if name == "" {
		return false
	}
	for _, c := range paneCreators {
		if name == c.alias || strings.HasPrefix(c.name, name) {
			return true
		}
	}
	return false
}

// resourceGate refuses commands that create panes when the server is close
// to its fd limit or the system to its PTY maximum. It samples afresh:
// reading /proc/PID/fd costs microseconds, and a stale sample is how a
// server livelocks.
func (s *Server) resourceGate(ctx context.Context) error {
	id := s.identity()
	if id.pid <= 0 {
		return nil
	}
	r, err := s.sample(ctx, id.pid)
	if err != nil {
		return nil // the process may be gone; the call itself will tell
	}
	// Judge what the server will hold once the command ran: the client that
	// carries it (a socket plus the stdin and stdout it passes) and the new
	// pane's pty. A server that reaches its limit livelocks.
	projected := r
	projected.FDs += fdsPerNewPane
	_, refuse := evaluateResources(projected, s.cfg.FDWarn, s.cfg.FDRefuse)
	var exhausted *ResourceExhaustedError
	if errors.As(refuse, &exhausted) {
		if exhausted.Resource == resFDs {
			exhausted.Used = uint64(r.FDs)
		}
		s.bus.emit(Event{Type: EventResourceRefused, Socket: s.sock, PID: id.pid, Resource: exhausted.Resource,
			Used: exhausted.Used, Limit: exhausted.Limit, Ratio: proc.Ratio(exhausted.Used, exhausted.Limit)})
		spanEvent(ctx, "tmux.resource_refused", attribute.String("tmux.resource", exhausted.Resource),
			attribute.Int64("tmux.resource.used", int64(exhausted.Used)), attribute.Int64("tmux.resource.limit", int64(exhausted.Limit)))
	}
	return refuse
}

// fdsPerNewPane is what creating a pane may add to the server's open fds:
// an exec client's socket, stdin and stdout, and the pane's pty master.
const fdsPerNewPane = 4

// sample takes a resource sample of the server process (CPU measured
// since the previous one) and records it.
func (s *Server) sample(ctx context.Context, pid int) (proc.Resources, error) {
	s.mu.Lock()
	prev := s.res
	s.mu.Unlock()
	r, err := proc.SampleResources(ctx, pid, &prev)
	if err != nil {
		return r, err
	}
	if id := s.identity(); r.FDLimit == 0 && id.owned != nil && id.owned.PID == pid {
		// Where one process cannot read another's limits (macOS), the
		// limit we started the server with is known.
		r.FDLimit = id.owned.FDLimit
	}
	s.recordResources(r)
	return r, nil
}

// recordResources stores a sample and emits a warning the first time a
// resource crosses the warning threshold (again after it fell below).
func (s *Server) recordResources(r proc.Resources) {
	levels, _ := evaluateResources(r, s.cfg.FDWarn, s.cfg.FDRefuse)
	s.mu.Lock()
	s.res = r
	var emit []resourceLevel
	seen := map[string]bool{}
	for _, l := range levels {
		seen[l.Resource] = true
		if !s.warned[l.Resource] {
			s.warned[l.Resource] = true
			emit = append(emit, l)
		}
	}
	for k := range s.warned {
		if !seen[k] {
			delete(s.warned, k)
		}
	}
	s.mu.Unlock()
	for _, l := range emit {
		s.bus.emit(Event{Type: EventResourceWarning, Socket: s.sock, PID: r.PID, Resource: l.Resource,
			Used: l.Used, Limit: l.Limit, Ratio: l.Ratio})
	}
}
