package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// sequencer is a transport that runs several commands as one command list
// (tmux.Control and tmux.Exec are).
type sequencer interface {
	RunSequence(ctx context.Context, cmds ...[]string) ([]byte, error)
}

// DoSequence runs cmds as one tmux command list under the same
// supervision as Do: tmux runs them in order with no other client's
// command between them and stops at the first that fails. It returns
// their output, one after another. The call is named for the last
// command (the one the list is for; those before it prepare it) in
// spans, metrics and events.
func (s *Server) DoSequence(ctx context.Context, cmds ...[]string) ([]byte, error) {
	if len(cmds) == 0 {
		return nil, errors.New("supervisor: empty tmux command list")
	}
	for _, c := range cmds {
		if len(c) == 0 {
			return nil, errors.New("supervisor: empty tmux command")
		}
		if createsPane(c) {
			return nil, fmt.Errorf("supervisor: %s cannot run in a command list", c[0])
		}
	}
	name := cmds[len(cmds)-1][0]
	if err := s.gateFor(ctx, name); err != nil {
		return nil, err
	}
	out, err := s.call(ctx, name, func(ctx context.Context, tr tmux.Transport) ([]byte, error) {
		sq, ok := tr.(sequencer)
		if !ok {
			return nil, fmt.Errorf("supervisor: the %s transport cannot run a command list", tr.Kind())
		}
		return sq.RunSequence(ctx, cmds...)
	})
	for _, c := range cmds {
		if !readOnly[c[0]] {
			s.fresh.Changed()
			break
		}
	}
	return out, err
}

// TypeKeys runs `send-keys ARGS` for pane after taking the pane out of
// any mode (copy mode, a chooser) in the same command list, so that the
// keys reach the program in the pane. In a mode tmux would hand them to
// the mode's key table instead, whose bindings run on tmux-mcp's own
// client: a search prompt there would wait for an answer no one types
// and hold up every command behind it.
func (s *Server) TypeKeys(ctx context.Context, pane tmux.PaneID, args ...string) error {
	send := append([]string{"send-keys", "-t", string(pane)}, args...)
	_, err := s.DoSequence(ctx, []string{"copy-mode", "-q", "-t", string(pane)}, send)
	return err
}
