package main

import (
	"log/slog"

	"github.com/tmux-mcp/tmux-mcp/httpmcp"
)

// httpOptions are the options of the HTTP transport (package httpmcp)
// that the settings give.
func (c config) httpOptions(logger *slog.Logger) httpmcp.Options {
	return httpmcp.Options{
		Addr:              c.HTTP,
		Socket:            c.HTTPSocket,
		AllowRemote:       c.HTTPAllowRemote,
		TokenFile:         c.HTTPTokenFile,
		Token:             c.HTTPToken,
		NoAuth:            c.HTTPNoAuth,
		Origins:           c.HTTPOrigins,
		MaxBody:           c.HTTPMaxBody,
		ReadHeaderTimeout: c.HTTPReadHeader,
		ReadTimeout:       c.HTTPRead,
		IdleTimeout:       c.HTTPIdle,
		MaxConns:          c.HTTPMaxConns,
		MaxSessions:       c.HTTPMaxSessions,
		SessionTTL:        c.HTTPSessionTTL,
		DrainTimeout:      drainTimeout,
		Logger:            logger,
	}
}
