package tools

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tmux-mcp/tmux-mcp/drive"
	"github.com/tmux-mcp/tmux-mcp/guard"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// sentSchema is the result of the tools that type into a pane.
var sentSchema = tooldef.Record(tField, []string{"result", "pane_id", "ready_timed_out"}, nil)

// sent is the result of a tool that typed into a pane.
type sent struct {
	Result        string `json:"result"`
	PaneID        string `json:"pane_id"`
	ReadyTimedOut bool   `json:"ready_timed_out"`
}

func (d Deps) sentResult(msg string, pane tmux.PaneID, notReady bool) (*mcp.CallToolResult, error) {
	s := d.sent(msg, pane, notReady)
	return mcp.NewToolResultStructured(s, s.Result), nil
}

func (d Deps) sent(msg string, pane tmux.PaneID, notReady bool) sent {
	if notReady {
		msg += fmt.Sprintf(" (it showed no output within %s; sent anyway)", d.readyTimeout())
	}
	return sent{Result: msg, PaneID: string(pane), ReadyTimedOut: notReady}
}

// The options of one send: send_keys takes them, and so does each
// operation of send_keys_batch.
var (
	pKeys         = mcp.WithString("keys", mcp.Required())
	pEnter        = mcp.WithBoolean("enter")
	pLiteral      = mcp.WithBoolean("literal")
	pSuppressHist = mcp.WithBoolean("suppress_history")
)

// sendKeysSchema is send_keys' result: sentSchema's, and wait, the
// result of wait_for as wait_for_text gives it (null without wait_for).
var sendKeysSchema = tooldef.Record(tField, []string{"result", "pane_id", "ready_timed_out", "wait"}, nil)

// sentKeys is send_keys' result.
type sentKeys struct {
	sent
	Wait *drive.WaitResult `json:"wait"`
}

// SendKeys types keys into a pane, and waits for text if asked.
func SendKeys(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("send_keys", "Type keys into a pane, then Enter. For output and exit status: run_command.",
		tooldef.Shell, sendKeysSchema, paneTarget(pKeys, pEnter, pLiteral, pSuppressHist, pIfSHA256, mcp.WithString("wait_for"), pTimeout,
			pAllowAgent, pAllowAttended)...)
	return t, withRequest(handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		k := keystrokes(p)
		if k.Keys == "" && !k.Enter {
			return nil, tooldef.BadArg("keys", "must not be empty when enter is false")
		}
		var w *drive.Wait
		var timeout time.Duration
		if _, ok := p["wait_for"]; ok {
			lp, err := compileLinePattern(p.Str("wait_for"), false, false)
			if err == nil && p.Str("wait_for") == "" {
				err = tooldef.BadArg("wait_for", "must not be empty")
			}
			if err != nil {
				return nil, err
			}
			if timeout, err = d.timeoutArg(p, 8); err != nil {
				return nil, err
			}
			w = &drive.Wait{Patterns: []drive.LinePattern{lp}}
		}
		tp, err := d.startTyping(ctx, p)
		if err != nil {
			return nil, err
		}
		srv, pn, notReady := tp.srv, tp.pane, tp.notReady
		d.markSend(ctx, srv, pn)
		err = k.Send(ctx, srv, pn.ID)
		tp.unlock()
		if err != nil {
			return nil, err
		}
		out := sentKeys{sent: d.sent("Keys sent to pane "+string(pn.ID), pn.ID, notReady)}
		if w == nil {
			return mcp.NewToolResultStructured(out, out.Result), nil
		}
		w.Start = time.Now()
		res, err := d.runWait(ctx, w, srv, pn.ID, timeout, drive.DefaultInterval, true)
		if err != nil {
			te := asToolError(err)
			if te == nil || ctx.Err() != nil {
				return nil, err
			}
			return nil, &toolError{msg: fmt.Sprintf("keys were sent to pane %s, but the wait for wait_for failed: %s", pn.ID, te.msg),
				class: te.class, hint: te.hint}
		}
		out.Wait = &res
		return structured(out)
	}))
}

// keystrokes reads a send's options from p (send_keys, or one operation of
// send_keys_batch).
func keystrokes(p tooldef.Args) drive.Keystroke {
	k := drive.Keystroke{Keys: p.Str("keys"), Enter: p.Flag("enter", true), Literal: p.Bool("literal")}
	if p.Bool("suppress_history") {
		k.Keys = " " + k.Keys
	}
	return k
}

// sendOp is one operation of send_keys_batch; its schema is the items'.
var sendOp = mcp.NewTool("op", pKeys, pPaneID, pSessionName, pSessionID, pWindowID, pEnter, pLiteral, pSuppressHist)

// maxBatch bounds the operations of one batch.
const maxBatch = 1000

// keysRow is one operation's outcome.
type keysRow struct {
	Index   int     `json:"index"`
	PaneID  *string `json:"pane_id"`
	Success bool    `json:"success"`
	Error   *string `json:"error"`
	Elapsed float64 `json:"elapsed_seconds"`
}

var batchRowSchema = tooldef.Record(tooldef.AnyOf("string", "number", "boolean", "null"),
	[]string{"index", "pane_id", "success", "error", "elapsed_seconds"}, nil)

// SendKeysBatch types several sends in order.
func SendKeysBatch(d Deps) (mcp.Tool, server.ToolHandlerFunc) {
	t := tooldef.New("send_keys_batch", "Several send_keys in order.",
		tooldef.Shell,
		tooldef.Record(tInt, []string{"succeeded", "failed"}, map[string]any{
			"results": map[string]any{"type": "array", "items": batchRowSchema}, "stopped_at": tIntNull}),

		mcp.WithArray("operations", mcp.Required(), mcp.Items(map[string]any{"type": "object"})),
		mcp.WithString("on_error", mcp.Enum("stop", "continue")),
		mcp.WithNumber("timeout"),
		pSocket)
	return t, handle(t, func(ctx context.Context, p tooldef.Args) (*mcp.CallToolResult, error) {
		ops, err := keyOps(p)
		if err != nil {
			return nil, err
		}
		if secs, ok := p.Number("timeout"); ok {
			if secs <= 0 || math.IsInf(secs, 0) {
				return nil, tooldef.BadArg("timeout", "must be positive")
			}
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(secs*float64(time.Second)))
			defer cancel()
			return d.runKeysBatch(ctx, p, ops, fmt.Sprintf("batch execution exceeded timeout of %gs", secs))
		}
		return d.runKeysBatch(ctx, p, ops, "")
	})
}

// keyOps checks every operation before any runs.
func keyOps(p tooldef.Args) ([]tooldef.Args, error) {
	items, _ := p["operations"].([]any)
	if len(items) == 0 {
		return nil, &toolError{msg: "operations must not be empty", class: "argument"}
	}
	if len(items) > maxBatch {
		return nil, &toolError{msg: fmt.Sprintf("operations must contain at most %d operations", maxBatch), class: "argument"}
	}
	props, required := sendOp.InputSchema.Properties, sendOp.InputSchema.Required
	ops := make([]tooldef.Args, len(items))
	for i, it := range items {
		op, err := tooldef.Check(props, required, it)
		if err != nil {
			if te := asToolError(err); te != nil {
				return nil, &toolError{msg: fmt.Sprintf("operations[%d]: %s", i, te.msg), class: te.class, hint: te.hint}
			}
			return nil, err
		}
		k := keystrokes(op)
		if k.Keys == "" && !k.Enter {
			return nil, tooldef.BadArg(fmt.Sprintf("operations[%d].keys", i), "must not be empty when enter is false")
		}
		ops[i] = op
	}
	return ops, nil
}

// runKeysBatch resolves every target, locks the panes the batch types into,
// and runs the operations in order. overrun, if set, is the error of an
// operation cut short by the batch's timeout.
func (d Deps) runKeysBatch(ctx context.Context, p tooldef.Args, ops []tooldef.Args, overrun string) (*mcp.CallToolResult, error) {
	srv, err := d.server(ctx, p)
	if err != nil {
		return nil, err
	}
	stop := p.Str("on_error") != "continue"
	panes := make([]tmux.Pane, len(ops))
	errs := make([]error, len(ops))
	var lock []tmux.PaneID
	for i, op := range ops {
		panes[i], errs[i] = findPane(ctx, srv, op)
		if errs[i] == nil {
			errs[i] = d.checkTyping(ctx, srv, panes[i], p)
			if ask := (*guard.AskUser)(nil); errors.As(errs[i], &ask) {
				return nil, ask // the user is asked before anything is typed
			}
		}
		if errs[i] == nil {
			lock = append(lock, panes[i].ID)
		} else if stop {
			break
		}
	}
	type result struct {
		Results   []keysRow `json:"results"`
		Succeeded int       `json:"succeeded"`
		Failed    int       `json:"failed"`
		StoppedAt *int      `json:"stopped_at"`
	}
	res := result{Results: []keysRow{}}
	// The last send to each pane marks where its output stood (see
	// sendMark); the sends before it forget the mark.
	last := map[tmux.PaneID]int{}
	for i := range ops {
		if errs[i] == nil && panes[i].ID != "" {
			last[panes[i].ID] = i
		}
	}
	unlock, err := d.panes.lock(ctx, srv.Socket(), lock...)
	if err != nil && overrun == "" {
		return nil, err // cancelled
	}
	if unlock != nil {
		defer unlock()
	}
	for i, op := range ops {
		start := time.Now()
		row := keysRow{Index: i}
		err := errs[i]
		if err == nil {
			id := string(panes[i].ID)
			row.PaneID = &id
			err = d.sendOne(ctx, srv, panes[i], keystrokes(op), last[panes[i].ID] == i)
		}
		if err != nil && ctx.Err() != nil && overrun != "" {
			err = errors.New(overrun)
		}
		row.Elapsed = seconds(time.Since(start))
		if err == nil {
			row.Success = true
			res.Succeeded++
		} else {
			msg := errorText(err)
			row.Error = &msg
			res.Failed++
		}
		res.Results = append(res.Results, row)
		if err != nil && stop {
			res.StoppedAt = &i
			break
		}
	}
	return structured(res)
}

// sendOne is one operation of a batch whose panes are locked; mark says
// it is the batch's last send to its pane.
func (d Deps) sendOne(ctx context.Context, srv *supervisor.Server, pn tmux.Pane, k drive.Keystroke, mark bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := d.panes.AwaitReady(ctx, srv, pn, d.readyTimeout()); err != nil {
		return err
	}
	if mark {
		d.markSend(ctx, srv, pn)
	} else {
		d.forgetSend(srv, pn.ID)
	}
	return k.Send(ctx, srv, pn.ID)
}

// errorText is an error as a tool error result would show it (message,
// class, suggestion), for rows of a batch.
func errorText(err error) string {
	te := asToolError(err)
	if te == nil {
		return err.Error()
	}
	s := te.msg
	if te.class != "" {
		s += " [" + te.class + "]"
	}
	if te.hint != "" {
		s += "\n" + te.hint
	}
	return s
}

// seconds rounds d to milliseconds, in seconds.
func seconds(d time.Duration) float64 {
	return math.Round(d.Seconds()*1000) / 1000
}
