// Package httpmcp is the streamable HTTP transport of the MCP server:
// authentication, Origin checks, tokens, session caps, request bounds.
//
// It guards mcp-go's streamable HTTP handler against what a web page, a
// client without the token, or a client that holds on could do. A
// request meets the checks in this order, and the first that refuses it
// answers:
//
//  1. Connections: past Options.MaxConns open ones, a new connection is
//     answered 503 and closed (bounds.go, limitConns); net/http bounds
//     how long a request's head and body may take.
//  2. Browser: on a loopback listener a Host that is not a loopback
//     name, and an Origin not on Options.Origins, get 403 (origin.go,
//     guardBrowser). This runs before authentication, so a page learns
//     nothing else.
//  3. Path: /mcp is MCP, and goes on to the checks below. With the live
//     view mounted (SetView), /view/ and everything under it is the view
//     and /view redirects there (301); the view has checks of its own
//     instead of those below (view.go): a browser's Origin must be the
//     view's own; its page, assets and sign-in page are public, its data
//     need the token or a view credential (viewcredential.go) in the
//     Authorization header. Every other path is 404, without a token
//     too, OAuth discovery paths among them (auth.go, notFound).
//  4. Authentication: no bearer token is 400, another token 403, with a
//     body that says where the token is and each client's line to send
//     it; never 401, which MCP clients take for the start of OAuth
//     (auth.go, requireBearer; token.go reads, generates and writes
//     tokens).
//  5. Bounds: a body over Options.MaxBody is 413, one that comes too
//     slowly 408 (bounds.go, limitBody).
//  6. Sessions: an initialize past Options.MaxSessions is 503
//     (sessions.go, capSessions and the session ID manager sessionCap),
//     and the notification stream (GET) needs a live session: 400
//     without one, 404 with an unknown one (guard.go).
//
// Start reading at serve.go: New checks the Options (options.go) and
// reads a given token, Open listens (listen.go) and generates a token
// when none was given, Serve wraps the handler in the checks above and
// serves until its context ends, and Close removes a generated token
// file. The settings themselves (flags, environment) are parsed by
// cmd/tmux-mcp, which fills Options.
package httpmcp
