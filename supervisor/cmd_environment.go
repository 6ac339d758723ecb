package supervisor

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmux's environment commands, typed. A session of "" names the global
// environment (-g), any other that session's (-t session). Both return
// do's error as it is.

// envScopeArgs is show-environment's and set-environment's scope flags for
// session.
func envScopeArgs(session tmux.SessionID) []string {
	if session == "" {
		return []string{"-g"}
	}
	return []string{"-t", string(session)}
}

// ShowEnvironment reads the global environment, or session's
// (show-environment -s, read by tmux.ParseEnvironment): each name maps
// to its value, or to nil for a variable removed from that environment;
// skipped counts records that could not be read and are left out.
func (s *Server) ShowEnvironment(ctx context.Context, session tmux.SessionID) (vars map[string]*string, skipped int, err error) {
	out, err := s.do(ctx, append(append([]string{}, tmux.EnvironmentArgs...), envScopeArgs(session)...)...)
	if err != nil {
		return nil, 0, err
	}
	vars, skipped = tmux.ParseEnvironment(out)
	return vars, skipped, nil
}

// SetEnvironment sets name to value in the global environment, or
// session's (set-environment -g|-t session -- name value).
func (s *Server) SetEnvironment(ctx context.Context, session tmux.SessionID, name, value string) error {
	_, err := s.do(ctx, append(append([]string{"set-environment"}, envScopeArgs(session)...), "--", name, value)...)
	return err
}
