// Package hosts reaches tmux on other machines: for each host named with
// --host it runs tmux-mcp there over the user's own OpenSSH client and
// speaks MCP to it over that connection's stdio. The remote tmux-mcp
// supervises its own tmux, journal and resources exactly as a local one
// does; this side only routes calls, watches the connection (a ping
// every few seconds gives its round-trip time and finds a half-open
// one), and reconnects when it is lost: at once after a connection that
// served a while, else with exponential backoff. While a host is down its
// calls fail at once with ErrHostDown; other hosts are not affected.
//
// tmux-mcp never handles a password or a host key: ssh runs with
// BatchMode=yes and the user's configuration, agent and known_hosts.
//
// Where things are: target.go parses --host (redact.go keeps passwords
// out of messages); link.go keeps one host's connection up, carrying out
// what reconnect.go decides (when to try again: pure, the time passed in,
// tested without ssh); router.go routes calls over the links; caller.go and machine_*.go describe the
// caller a routed call comes from, so that a host that is this machine
// guards the agent's own pane; install.go and cache.go copy this binary
// to a host and check the copy before it runs; subscribe.go holds resource
// subscriptions on the hosts; hint.go says what to do when a host is down.
// The end-to-end tests (*_e2e_test.go, package hosts_test) drive the built
// binary against hosts simulated by sshd on loopback (sshdtest), through
// internal/e2etest.
package hosts
