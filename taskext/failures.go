package taskext

import (
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// fail ends t failed for why (what it worked on went away) and cancels
// its call.
func (m *Manager) fail(t *task, why string) {
	m.finish(t, nil, lostError(why))
	t.cancel()
}

// lostError is the failure of a task whose work went away.
type lostError string

func (f lostError) Error() string { return string(f) }

func (f lostError) JSONRPCCode() int { return codeInternal }

// lostResult says why res means the call's world went away, "" when it
// does not.
func (m *Manager) lostResult(res *mcp.CallToolResult) string {
	if m.opts.Lost == nil || !res.IsError {
		return ""
	}
	why, lost := m.opts.Lost(res)
	if !lost {
		return ""
	}
	return why
}

// codedError is an error that says its JSON-RPC code.
type codedError interface {
	error
	JSONRPCCode() int
}

// dataError is an error that carries the data of its JSON-RPC error.
type dataError interface {
	error
	JSONRPCData() any
}

// asRPCError is the JSON-RPC error a failed call reports.
func asRPCError(err error) *RPCError {
	var c codedError
	if errors.As(err, &c) {
		e := &RPCError{Code: c.JSONRPCCode(), Message: err.Error()}
		var d dataError
		if errors.As(err, &d) {
			e.Data = d.JSONRPCData()
		}
		return e
	}
	return &RPCError{Code: codeInternal, Message: err.Error()}
}

// panicError is a handler's panic, reported as an internal error.
type panicError struct{ v any }

func (e panicError) Error() string { return fmt.Sprintf("the tool's handler failed: %v", e.v) }
