package supervisor

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// tmux's paste-buffer commands, typed (DeleteBuffer, which needs a
// look-up first, is in buffers.go). Each method sends one command through
// do and returns do's error as it is (see cmd_pane.go). A buffer's bytes
// travel through a file (LoadBuffer, SaveBuffer) or in chunks (SetBuffer,
// AppendBuffer): a command argument holds no NUL and, over exec, no more
// than 128 KiB.

// LoadBuffer loads the file at path into the buffer called name
// (load-buffer -b name -- path). tmux expands formats in the path; the
// wire keeps it literal.
func (s *Server) LoadBuffer(ctx context.Context, name, path string) error {
	_, err := s.do(ctx, "load-buffer", "-b", name, "--", path)
	return err
}

// SaveBuffer writes the buffer called name to the file at path, raw
// whatever the transport (save-buffer -b name -- path).
func (s *Server) SaveBuffer(ctx context.Context, name, path string) error {
	_, err := s.do(ctx, "save-buffer", "-b", name, "--", path)
	return err
}

// SetBuffer sets the buffer called name to data, creating it if need be
// (set-buffer -b name -- data).
func (s *Server) SetBuffer(ctx context.Context, name, data string) error {
	_, err := s.do(ctx, "set-buffer", "-b", name, "--", data)
	return err
}

// AppendBuffer appends data to the buffer called name (set-buffer -a -b
// name -- data).
func (s *Server) AppendBuffer(ctx context.Context, name, data string) error {
	_, err := s.do(ctx, "set-buffer", "-a", "-b", name, "--", data)
	return err
}

// PasteOptions are paste-buffer's choices.
type PasteOptions struct {
	// Delete deletes the buffer once pasted (-d).
	Delete bool
	// Bracket wraps the text in bracketed-paste sequences when the
	// pane's application asked for them (-p).
	Bracket bool
}

// PasteBuffer pastes the buffer called name into pane (paste-buffer [-d]
// -b name -t pane [-p]).
func (s *Server) PasteBuffer(ctx context.Context, pane tmux.PaneID, name string, opt PasteOptions) error {
	args := []string{"paste-buffer"}
	if opt.Delete {
		args = append(args, "-d")
	}
	args = append(args, "-b", name, "-t", string(pane))
	if opt.Bracket {
		args = append(args, "-p")
	}
	_, err := s.do(ctx, args...)
	return err
}

// ListBuffers returns the names of the server's paste buffers in tmux's
// order (list-buffers -F with buffer_name as a record). An output that
// cannot be read is an error wrapping tmux's record error.
func (s *Server) ListBuffers(ctx context.Context) ([]string, error) {
	out, err := s.do(ctx, "list-buffers", "-F", tmux.RecordFormat("buffer_name"))
	if err != nil {
		return nil, err
	}
	recs, err := tmux.ParseRecords(out, 1)
	if err != nil {
		return nil, fmt.Errorf("supervisor: list buffers: %w", err)
	}
	names := make([]string, len(recs))
	for i, r := range recs {
		names[i] = r[0]
	}
	return names, nil
}
