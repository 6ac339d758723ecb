package tools

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The arguments every listing takes (listing.go): filters and a limit,
// read here once so that every listing applies one rule. A limit is at
// least 1; a smaller one is refused with the same argument error
// everywhere, never read as "no limit".

// listArgs are a listing's filters and limit.
type listArgs struct {
	filters map[string]string
	limit   int
}

// parseListArgs reads a listing's filters and limit; def is the limit
// when the call gives none (0 for a listing without a limit parameter:
// no limit).
func parseListArgs(p params, def int) (listArgs, error) {
	filters, err := p.object("filters")
	if err != nil {
		return listArgs{}, err
	}
	limit, err := limitArg(p, def)
	if err != nil {
		return listArgs{}, err
	}
	return listArgs{filters: filters, limit: limit}, nil
}

// limitArg reads a limit: def when absent, else at least 1.
func limitArg(p params, def int) (int, error) {
	return positiveArg(p, "limit", def)
}

// listOnServer is parseListArgs for a listing of a tmux server's
// objects, then the server the call names.
func (d Deps) listOnServer(ctx context.Context, p params, def int) (*supervisor.Server, listArgs, error) {
	a, err := parseListArgs(p, def)
	if err != nil {
		return nil, listArgs{}, err
	}
	srv, err := d.server(ctx, p)
	if err != nil {
		return nil, listArgs{}, err
	}
	return srv, a, nil
}

// listOnSocket is parseListArgs for a listing read without tmux (the
// journal's), then the socket the call names.
func (d Deps) listOnSocket(p params, def int) (tmux.Socket, listArgs, error) {
	a, err := parseListArgs(p, def)
	if err != nil {
		return tmux.Socket{}, listArgs{}, err
	}
	sock, err := d.socket(p)
	if err != nil {
		return tmux.Socket{}, listArgs{}, err
	}
	return sock, a, nil
}
