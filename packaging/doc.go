// Package packaging holds the tests of tmux-mcp's release packaging: the
// goreleaser archives, the npm launcher and its platform packages, the MCP
// bundles and the MCP registry entry. The files they test live beside
// them (npm/, mcpb/, registry/) and at the repository's root
// (.goreleaser.yaml, server.json); RELEASING.md says how they are used.
//
// The registry entry's tests need nothing built and run with every
// `go test ./...`. The others test what `make release-snapshot`,
// `make npm-pack` and `make mcpb` leave in dist/, and skip, saying
// which target builds it, when it is missing; `make release-check`
// builds everything first and sets TMUX_MCP_RELEASE_CHECK=1, under which
// a missing artifact fails the test instead.
package packaging
