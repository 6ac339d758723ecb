package capture

import "github.com/tmux-mcp/tmux-mcp/tmux"

// Request asks for a pane's contents.
type Request struct {
	Pane tmux.PaneID
	// Start and End are line numbers as capture-pane takes them: 0 is the
	// first visible line, negative numbers reach into history. Nil Start is
	// the top of the visible screen; nil End is its bottom.
	Start, End *int
	// FullHistory asks for the whole history (-S -); it is capped like any
	// other range, keeping the tail.
	FullHistory bool
	// MaxLines and MaxBytes cap the result (0: the configured defaults);
	// they may not exceed the configured ceilings.
	MaxLines, MaxBytes int
	Join, Escape       bool
	// Changed says the caller knows the pane changed since the last
	// capture it could be served (a PaneChanges event woke it): the cache
	// cannot answer, so the capture goes to tmux without the barrier round
	// trip that would prove as much, and is not cached. It is exact all
	// the same: capture-pane runs after the call began.
	Changed bool
	// StateAfter, when set, is a display-message format for the pane read
	// in the same round trip just after the capture (Result.State): what
	// the pane was when it was captured, without a round trip of its
	// own. It implies Changed.
	StateAfter string
}

// Result is a pane's contents and how they were obtained.
type Result struct {
	Content        []byte `json:"-"`
	Lines          int    `json:"lines"`
	Truncated      bool   `json:"truncated"`
	TruncatedLines int    `json:"truncated_lines,omitempty"`
	TruncatedBytes int    `json:"truncated_bytes,omitempty"`
	// Cached: served from cache, without a tmux call.
	Cached bool `json:"cached"`
	// Freshness says what vouches for a capture served from cache (and
	// would for this one): "watcher" (a barrier on the session's watcher
	// connection showed no %output and no state change since), "probe"
	// (no watcher: the pane's state and its window's activity are as they
	// were), or "none" (nothing can: the capture went to tmux). See
	// freshness.go for the contract.
	Freshness string `json:"freshness"`
	// SHA256 is the SHA-256 of Content in hex (64 digits), so callers can
	// tell whether two captures differ without comparing them.
	SHA256 string `json:"sha256"`
	// State is the line Request.StateAfter asked for.
	State []byte `json:"-"`
}
