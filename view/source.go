package view

import "context"

// Source is what the view reads: package tools implements it over the
// supervisor, the jobs and the journal.
type Source interface {
	// Overview reads every supervised server. It starts no server.
	Overview(ctx context.Context) (Overview, error)
	// Screen captures a pane's visible screen with its escapes and cursor.
	Screen(ctx context.Context, server, pane string) (Screen, error)
	// Changes signals each time pane may have changed; the channel closes
	// when the watcher that feeds it ends (call again). It fails when no
	// watcher can cover the pane; the hub polls then.
	Changes(ctx context.Context, server, pane string) (changes <-chan struct{}, stop func(), err error)
}

// Typist types into panes: the page's input, when switched on.
type Typist interface {
	// Type sends text to pane literally, then Enter when enter is set.
	Type(ctx context.Context, server, pane, text string, enter bool) error
}
