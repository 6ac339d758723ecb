package supervisor

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// DeleteBuffer deletes the paste buffer called name if it exists, and
// reports whether it did. tmux's delete-buffer -b of a name that does not
// exist deletes the most recent buffer instead (cmd-set-buffer.c to 3.3a;
// 3.4 answers "unknown buffer"; Debian 12's 3.3a has the fix, the source
// release does not): a person's last copy. So the name is looked up first,
// on every version, rather than trusting a version number a distribution
// may have patched;
// between the look-up and the delete only another client deleting the same
// buffer can interfere, and then tmux answers "no buffer".
func (s *Server) DeleteBuffer(ctx context.Context, name string) (bool, error) {
	out, err := s.do(ctx, "list-buffers", "-F", tmux.RecordFormat("buffer_name"))
	if err != nil {
		return false, err
	}
	recs, err := tmux.ParseRecords(out, 1)
	if err != nil {
		return false, fmt.Errorf("supervisor: list buffers: %w", err)
	}
	for _, r := range recs {
		if r[0] == name {
			if _, err := s.do(ctx, "delete-buffer", "-b", name); err != nil {
				return false, err
			}
			return true, nil
		}
	}
	return false, nil
}
