package tools

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tooldef"
)

// listOnServer is tooldef.ParseListArgs for a listing of a tmux server's
// objects, then the server the call names.
func (d Deps) listOnServer(ctx context.Context, p tooldef.Args, def int) (*supervisor.Server, tooldef.ListArgs, error) {
	a, err := tooldef.ParseListArgs(p, def)
	if err != nil {
		return nil, tooldef.ListArgs{}, err
	}
	srv, err := d.server(ctx, p)
	if err != nil {
		return nil, tooldef.ListArgs{}, err
	}
	return srv, a, nil
}

// listOnSocket is tooldef.ParseListArgs for a listing read without tmux (the
// journal's), then the socket the call names.
func (d Deps) listOnSocket(p tooldef.Args, def int) (tmux.Socket, tooldef.ListArgs, error) {
	a, err := tooldef.ParseListArgs(p, def)
	if err != nil {
		return tmux.Socket{}, tooldef.ListArgs{}, err
	}
	sock, err := d.socket(p)
	if err != nil {
		return tmux.Socket{}, tooldef.ListArgs{}, err
	}
	return sock, a, nil
}
