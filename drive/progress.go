package drive

import (
	"context"
	"time"
)

// Progress starts reporting a wait of at most limit for what (an MCP
// progress notice, in tools) and returns the function that stops it. A
// nil Progress reports nothing.
type Progress func(ctx context.Context, limit time.Duration, what string) (stop func())

// start starts p, if set.
func (p Progress) start(ctx context.Context, limit time.Duration, what string) (stop func()) {
	if p == nil {
		return func() {}
	}
	return p(ctx, limit, what)
}
