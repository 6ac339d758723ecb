package supervisor

import "context"

// Replay sends argv, one tmux command that no typed method spells: the
// steps of a journal's restore plan, built from a snapshot and replayed
// after a death. It passes every gate a typed method's command passes
// (do), and the wire's door keeps each argument literal as it does for
// every command.
//
// It is the journal's door, and the only raw one: do, doBlocking and
// doSequence are unexported, and the tools and the job engine never call
// Replay (TestToolsUseTypedCommands, in typedcommands_test.go at the
// module root, fails on any reference to it from tools/ or jobs/: a
// call, a method value, an interface or an embedding alike). They send
// typed commands only.
func (s *Server) Replay(ctx context.Context, argv []string) ([]byte, error) {
	return s.do(ctx, argv...)
}
