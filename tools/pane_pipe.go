package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/shellquote"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// PipePane starts or stops copying a pane's output to a file.
func PipePane(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("pipe_pane", "Append a pane's output to a file, or stop.",
		tooldef.Shell, messageSchema,
		paneTarget(mcp.WithString("output_path"), mcp.WithBoolean("append"))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		raw, given := p["output_path"].(string)
		if given && strings.TrimSpace(raw) == "" {
			return nil, &toolError{msg: "output_path must be a non-empty path, or null to stop piping.", class: "argument"}
		}
		srv, pn, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		if !given {
			if err := srv.StopPipe(ctx, pn.ID); err != nil {
				return nil, err
			}
			return message("Piping stopped for pane " + string(pn.ID))
		}
		cwd, err := paneDir(ctx, srv, pn.ID)
		if err != nil {
			return nil, err
		}
		path, err := d.pipePath(raw, cwd)
		if err != nil {
			return nil, err
		}
		redirect := ">>"
		if !p.Flag("append", true) {
			redirect = ">"
		}
		cmd := "cat " + redirect + " " + shellquote.Quote(path)
		if err := srv.PipePane(ctx, pn.ID, cmd); err != nil {
			return nil, err
		}
		return message(fmt.Sprintf("Piping pane %s to %s", pn.ID, path))
	})
}

// paneDir returns a pane's current directory. A pane just created reads
// as the tmux server's directory until its process has run the pane's
// command, so that moment is awaited (briefly: a fork runs its command at
// once) before the directory is read.
func paneDir(ctx context.Context, srv *supervisor.Server, pane tmux.PaneID) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for {
		f, err := drive.DisplayFields(ctx, srv, pane, "pane_pid")
		if err != nil {
			return "", err
		}
		pid, _ := strconv.Atoi(f[0])
		if !proc.PaneStarting(srv.Health().PID, pid) {
			break
		}
		select {
		case <-ctx.Done():
			return "", &toolError{msg: "Pane " + string(pane) + " has not started its command yet, so its directory is not known.",
				class: "pane_starting", hint: "Try again in a moment."}
		case <-time.After(10 * time.Millisecond):
		}
	}
	f, err := drive.DisplayFields(ctx, srv, pane, "pane_current_path")
	if err != nil {
		return "", err
	}
	return f[0], nil
}

// pipePath checks where pipe_pane may write. A relative path is taken
// from the pane's current directory. The file's directory, with symlinks
// resolved, must be inside the pane's current directory, the temporary
// directory or one of d.PipeDirs (also resolved); the file must not be a
// symlink or anything but a regular file. It returns the path with its
// directory resolved, so that what was checked is what is opened.
func (d Deps) pipePath(raw, cwd string) (string, error) {
	if strings.ContainsFunc(raw, unicode.IsControl) {
		return "", tooldef.BadArg("output_path", "must not contain control characters")
	}
	path := raw
	if !filepath.IsAbs(path) {
		if cwd == "" {
			return "", tooldef.BadArg("output_path", "want an absolute path (the pane's current directory is unknown)")
		}
		path = filepath.Join(cwd, path)
	}
	path = filepath.Clean(path)
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", refused(fmt.Sprintf("output_path %s: its directory does not exist", path))
	}
	roots := append([]string{cwd, os.TempDir()}, d.PipeDirs...)
	inside := false
	for _, r := range roots {
		if r == "" {
			continue
		}
		if rr, err := filepath.EvalSymlinks(r); err == nil && (dir == rr || strings.HasPrefix(dir, rr+string(filepath.Separator))) {
			inside = true
			break
		}
	}
	if !inside {
		return "", &toolError{msg: fmt.Sprintf("output_path %s is outside the directories pipe_pane may write to", path), class: "refused",
			hint: "Use a path under the pane's current directory or " + os.TempDir() + ", or start tmux-mcp with --pipe-dirs."}
	}
	path = filepath.Join(dir, filepath.Base(path))
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return "", refused(fmt.Sprintf("output_path %s is not a regular file (%s)", path, fi.Mode().Type()))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", refused(fmt.Sprintf("output_path %s: %v", path, err))
	}
	return path, nil
}
