package supervisor

import "context"

// tmux's wait channels, typed (wait-for).

// WaitForChannel blocks until channel is signalled or ctx ends (wait-for
// channel). It runs as a blocking command (doBlocking): never over the
// shared control connection, where it would hold up every command
// behind it.
func (s *Server) WaitForChannel(ctx context.Context, channel string) error {
	_, err := s.doBlocking(ctx, "wait-for", channel)
	return err
}

// SignalChannel wakes every client waiting on channel (wait-for -S
// channel).
func (s *Server) SignalChannel(ctx context.Context, channel string) error {
	_, err := s.do(ctx, "wait-for", "-S", channel)
	return err
}
