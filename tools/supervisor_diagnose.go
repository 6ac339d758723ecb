package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// Diagnoser writes the crash report for the diagnose tool. cmd/tmux-mcp
// passes one built on package diagnostics, which tools does not import.
type Diagnoser interface {
	Diagnose(ctx context.Context, q DiagnoseQuery) (DiagnoseResult, error)
}

// DiagnoseQuery says what to diagnose.
type DiagnoseQuery struct {
	Socket tmux.Socket // the server named, or the default one
	All    bool        // and every other server diagnose can find
	Since  time.Duration
}

// DiagnoseResult is the report twice: JSON for structured content, and
// Markdown for people.
type DiagnoseResult struct {
	Report   json.RawMessage
	Markdown string
}

// diagnoseSchema is the report's envelope; the report has more fields
// (servers, causes, timeline, ...), which agents read as they come.
var diagnoseSchema = map[string]any{
	"type":     "object",
	"required": []string{"schema_version", "status"},
	"properties": map[string]any{
		"schema_version": tInt,
		"status":         tString,
	},
}

// Diagnose writes the crash report of a tmux server.
func Diagnose(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("diagnose", "Crash report of a tmux server: likely causes with evidence, next steps. Starts nothing.",
		tooldef.Read, diagnoseSchema, pSocket,
		mcp.WithBoolean("all"),
		mcp.WithString("since"))
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		if d.Diagnoser == nil {
			return nil, &toolError{msg: "diagnose is not available in this tmux-mcp", class: "unavailable",
				hint: "Run `tmux-mcp diagnose` in a shell."}
		}
		q := DiagnoseQuery{All: p.Bool("all"), Since: 24 * time.Hour}
		if s := p.Str("since"); s != "" {
			since, err := time.ParseDuration(s)
			if err != nil || since <= 0 {
				return nil, tooldef.BadArg("since", "want a positive duration such as 2h")
			}
			q.Since = since
		}
		sock, err := socketArg(p)
		if err != nil {
			return nil, err
		}
		if sock == (tmux.Socket{}) {
			sock = d.Sup.Config().DefaultSocket
		}
		q.Socket = sock
		res, err := d.Diagnoser.Diagnose(ctx, q)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultStructured(res.Report, res.Markdown), nil
	})
}
