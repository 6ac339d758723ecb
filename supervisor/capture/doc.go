// Package capture is the supervisor's capture subsystem: the capture plan
// (caps and ranges), the cache, and the freshness check that decides when
// the cache may answer, with the connections it needs to decide: one
// watcher connection per watched session, the exec-only probe, and the
// pipe feeds that report a pane's changes where no watcher can.
//
// The contract is that a capture is linearizable: if it begins at time t,
// its content includes every byte of pane output that tmux had processed
// before t. freshness.go holds the whole argument and its one known
// limit; it is the file to open to learn why a capture was served from
// cache.
//
// The package talks to tmux only through the tmux client it
// is given, and never calls back into the supervisor on a capture's path:
// the supervisor resolves the pane's session first (Freshness.SessionOf,
// its own list-panes when the pane is new) and hands it to
// [Freshness.Prove]. Its hooks (Options) are event sinks and the gated
// runner the pipe feeds use.
//
// Where to start: [NewPlan] and [Plan] (what to ask tmux for, capped),
// [Freshness.Prove], [Freshness.Lookup] and [Freshness.Store] (the cache
// under a [Proof]), [Freshness.PaneChanges] (change notifications), and
// [Coalescer] (one tmux call for callers who may share it).
package capture
