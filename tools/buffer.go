package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Buffers are namespaced: load_buffer names them
// tmux_mcp_<process><call>_<logical>, where <process> is 16 hex digits
// drawn once per MCP server (New) and <call> 16 more per call. The other
// buffer tools accept only names of this process, so no tool reads,
// pastes or deletes the user's buffers (or another agent's), and there is
// no list_buffers.
var (
	logicalNameRe = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	bufferNameRe  = regexp.MustCompile(`^tmux_mcp_[0-9a-f]{32}_[A-Za-z0-9_.-]{1,64}$`)
)

const bufferPrefix = "tmux_mcp_"

// newBufferNamespace returns the prefix of this process's buffer names.
func newBufferNamespace() string { return bufferPrefix + randomHex(8) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

var (
	pBufferName = mcp.WithString("buffer_name", mcp.Required())
	bufferRef   = tooldef.Record(tString, []string{"buffer_name", "logical_name"}, nil)
)

// bufferName checks that the buffer_name argument names a buffer of this
// process.
func (d Deps) bufferName(p tooldef.Args) (string, error) {
	name := p.Str("buffer_name")
	if !bufferNameRe.MatchString(name) {
		return "", &toolError{msg: fmt.Sprintf("Invalid buffer name: '%s'", clip(name)), class: "argument",
			hint: "Use a buffer_name returned by load_buffer."}
	}
	if d.bufNS == "" || !strings.HasPrefix(name, d.bufNS) {
		return "", &toolError{msg: fmt.Sprintf("Invalid buffer name: '%s': not a buffer of this tmux-mcp process", name),
			class: "argument", hint: "Use a buffer_name returned by load_buffer in this session."}
	}
	return name, nil
}

// clip shortens user input for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// bufferError words a failed buffer command as libtmux-mcp does; errors
// that are not tmux's answer to the command pass through.
func bufferError(cmd, name string, err error) error {
	var ce *tmux.CommandError
	if errors.As(err, &ce) && !tmux.IsServerDown(err) && !errors.Is(err, tmux.ErrTimeout) {
		return &toolError{msg: fmt.Sprintf("%s failed for '%s': %s", cmd, name, strings.TrimSpace(ce.Stderr)),
			class: tmux.ClassName(err)}
	}
	return err
}

// bufferFile is a private temporary file for load-buffer and save-buffer:
// a buffer's bytes travel through it, so they are never a command
// argument (which cannot hold NUL and, over exec, more than 128 KiB).
// tmux expands formats in the path; the wire keeps it literal.
type bufferFile struct {
	name string
}

func newBufferFile(content []byte) (*bufferFile, error) {
	f, err := os.CreateTemp("", "tmux-mcp-buf-*")
	if err != nil {
		return nil, fmt.Errorf("tools: buffer file: %w", err)
	}
	_, werr := f.Write(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	bf := &bufferFile{name: f.Name()}
	if werr != nil {
		bf.remove()
		return nil, fmt.Errorf("tools: buffer file: %w", werr)
	}
	return bf, nil
}

func (f *bufferFile) remove() { os.Remove(f.name) } //nolint:errcheck // best effort

// LoadBuffer loads text into a new buffer of this process.
func LoadBuffer(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("load_buffer", "Load text into a new tmux-mcp buffer; returns its buffer_name.", tooldef.Shell, bufferRef,
		mcp.WithString("content", mcp.Required()),
		mcp.WithString("logical_name"),
		pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		logical := p.Str("logical_name")
		if logical == "" {
			logical = "buf"
		}
		if !logicalNameRe.MatchString(logical) {
			return nil, &toolError{msg: fmt.Sprintf("Invalid logical buffer name: '%s'", clip(logical)), class: "argument",
				hint: "Use 1-64 characters from A-Z a-z 0-9 _ . -"}
		}
		if d.bufNS == "" {
			return nil, errors.New("tools: no buffer namespace (Deps not built by New)")
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		name := d.bufNS + randomHex(8) + "_" + logical
		f, err := newBufferFile([]byte(p.Str("content")))
		if err != nil {
			return nil, err
		}
		defer f.remove()
		if err := srv.LoadBuffer(ctx, name, f.name); err != nil {
			return nil, bufferError("load-buffer", name, err)
		}
		return structured(map[string]string{"buffer_name": name, "logical_name": logical})
	})
}

// ShowBuffer reads a buffer of this process.
func ShowBuffer(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("show_buffer", "Read a tmux-mcp buffer.", tooldef.Read,
		tooldef.Record(tString, []string{"buffer_name", "content"},
			map[string]any{"content_truncated": tBool, "content_truncated_lines": tInt}),

		pBufferName, mcp.WithInteger("max_lines", mcp.Min(0)), pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name, err := d.bufferName(p)
		if err != nil {
			return nil, err
		}
		maxLines, ok := p.Int("max_lines")
		if !ok {
			maxLines = 500
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		content, err := readBuffer(ctx, srv, name)
		if err != nil {
			return nil, err
		}
		res := struct {
			BufferName            string `json:"buffer_name"`
			Content               string `json:"content"`
			ContentTruncated      bool   `json:"content_truncated"`
			ContentTruncatedLines int    `json:"content_truncated_lines"`
		}{BufferName: name, Content: content}
		lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
		if maxLines > 0 && len(lines) > maxLines {
			res.Content = strings.Join(lines[len(lines)-maxLines:], "\n")
			res.ContentTruncated, res.ContentTruncatedLines = true, len(lines)-maxLines
		}
		return structured(res)
	})
}

// readBuffer returns a buffer's bytes. save-buffer writes them raw to a
// file whatever the transport (show-buffer escapes them over control
// mode and not over exec).
func readBuffer(ctx context.Context, srv *supervisor.Server, name string) (string, error) {
	f, err := newBufferFile(nil)
	if err != nil {
		return "", err
	}
	defer f.remove()
	if err := srv.SaveBuffer(ctx, name, f.name); err != nil {
		return "", bufferError("show-buffer", name, err)
	}
	b, err := os.ReadFile(f.name)
	if err != nil {
		return "", fmt.Errorf("tools: read buffer file: %w", err)
	}
	return string(b), nil
}

// PasteBuffer pastes a buffer of this process into a pane; the buffer is
// kept.
func PasteBuffer(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("paste_buffer", "Paste a tmux-mcp buffer into a pane; keeps it.",
		tooldef.Shell, messageSchema,
		paneTarget(pBufferName, mcp.WithBoolean("bracket"))...)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name, err := d.bufferName(p)
		if err != nil {
			return nil, err
		}
		srv, x, err := d.pane(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := d.checkTyping(ctx, srv, x, p); err != nil {
			return nil, err
		}
		_, set := p["bracket"]
		opt := supervisor.PasteOptions{Bracket: !set || p.Bool("bracket")}
		d.markSend(ctx, srv, x)
		if err := srv.PasteBuffer(ctx, x.ID, name, opt); err != nil {
			return nil, bufferError("paste-buffer", name, err)
		}
		return message(fmt.Sprintf("Buffer '%s' pasted to pane %s", name, x.ID))
	})
}

// DeleteBuffer deletes a buffer of this process.
func DeleteBuffer(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("delete_buffer", "Delete a tmux-mcp buffer.", tooldef.Mutate, messageSchema, pBufferName, pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		name, err := d.bufferName(p)
		if err != nil {
			return nil, err
		}
		srv, err := d.server(ctx, p)
		if err != nil {
			return nil, err
		}
		deleted, err := srv.DeleteBuffer(ctx, name)
		if err != nil {
			return nil, bufferError("delete-buffer", name, err)
		}
		if !deleted {
			return nil, &toolError{msg: fmt.Sprintf("delete-buffer failed for '%s': no buffer %s", name, name), class: "command"}
		}
		return message(fmt.Sprintf("Buffer '%s' deleted", name))
	})
}

// deleteBuffers deletes this process's buffers on every server that is up,
// as libtmux-mcp does at shutdown: no later process can use them.
func (d Deps) deleteBuffers(timeout time.Duration) {
	if d.bufNS == "" || d.Sup == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, srv := range d.Sup.Servers() {
		if srv.State() != supervisor.StateUp {
			continue
		}
		names, err := srv.ListBuffers(ctx)
		if err != nil {
			continue
		}
		for _, name := range names {
			if strings.HasPrefix(name, d.bufNS) {
				srv.DeleteBuffer(ctx, name) //nolint:errcheck // best effort at shutdown
			}
		}
	}
}
