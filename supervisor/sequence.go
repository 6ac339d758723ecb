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

// doSequence runs cmds as one tmux command list under the same
// supervision as do: tmux runs them in order with no other client's
// command between them and stops at the first that fails. It returns
// their output, one after another. The call is named for the last
// command (the one the list is for; those before it prepare it) in
// spans, metrics and events.
func (s *Server) doSequence(ctx context.Context, cmds ...[]string) ([]byte, error) {
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

// TypeKeys types keys into pane, each a key name tmux sends as that key
// (Enter, C-c, BSpace, F1) or else text it sends as its characters
// (send-keys -t pane -- keys...), after taking the pane out of any mode
// (copy mode, a chooser) in the same command list, so that the keys reach
// the program in the pane. In a mode tmux would hand them to the mode's
// key table instead, whose bindings run on tmux-mcp's own client: a
// search prompt there would wait for an answer no one types and hold up
// every command behind it.
func (s *Server) TypeKeys(ctx context.Context, pane tmux.PaneID, keys ...string) error {
	return s.typeInto(ctx, pane, append([]string{"--"}, keys...))
}

// TypeText types text into pane as characters, a key name included
// (send-keys -t pane -l -- text), out of any mode as TypeKeys does.
func (s *Server) TypeText(ctx context.Context, pane tmux.PaneID, text string) error {
	return s.typeInto(ctx, pane, []string{"-l", "--", text})
}

// typeInto runs send-keys -t pane args after copy-mode -q in one command
// list.
func (s *Server) typeInto(ctx context.Context, pane tmux.PaneID, args []string) error {
	send := append([]string{"send-keys", "-t", string(pane)}, args...)
	_, err := s.doSequence(ctx, []string{"copy-mode", "-q", "-t", string(pane)}, send)
	return err
}
