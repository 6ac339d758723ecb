package guard

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

// Guard is what the refusals need of one tools catalog: who the caller
// is, what the flags allow, and what this process remembers of panes.
// The tools build one per call from their Deps (a value: copying it is
// cheap, and its pointers are shared).
type Guard struct {
	// Caller is the pane TMUX and TMUX_PANE named at startup, if any.
	Caller Caller
	// Destructive is true at the destructive tier, the only tier where
	// AllowOwnPane and AllowSelfInput count.
	Destructive bool
	// AllowOwnPane lets every guarded action reach the caller's own pane
	// without asking (--allow-own-pane); AllowSelfInput lets typing reach
	// it (--allow-self-input).
	AllowOwnPane, AllowSelfInput bool
	// Own remembers the caller's pane per server; nil looks at the
	// environment only (envPaneOn).
	Own *OwnPanes
	// Agents remembers the agent CLI last seen in each pane.
	Agents *Agents
	// Request returns the call's request, for its tool name and the
	// answer to a question put to the user.
	Request func(context.Context) mcp.CallToolRequest
	// PaneTree returns the processes under a pane's process (the job
	// engine's jobs.PaneTree), where an agent CLI is looked for.
	PaneTree func(ctx context.Context, pid int) ([]int, error)
}
