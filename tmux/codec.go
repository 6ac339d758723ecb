package tmux

import "github.com/tmux-mcp/tmux-mcp/tmux/codec"

// The codecs of tmux's text live in package codec. Those that the wire's
// users read tmux's output with (records, the environment, stored names)
// are forwarded here, so that a package above the wire needs only this
// one; see codec for the rules.

// RecordFormat returns the format that prints the values of vars (format
// variable or option names, such as "pane_id") as one record that
// ParseRecords reads back (codec.RecordFormat).
func RecordFormat(vars ...string) string { return codec.RecordFormat(vars...) }

// ParseRecords decodes the output of a command run with a RecordFormat of
// n variables: one record per expansion (codec.ParseRecords).
func ParseRecords(out []byte, n int) ([][]string, error) { return codec.ParseRecords(out, n) }

// ParseRecord decodes the output of a command that prints one record of
// n fields (codec.ParseRecord).
func ParseRecord(out []byte, n int) ([]string, error) { return codec.ParseRecord(out, n) }

// EnvironmentArgs is show-environment in the form ParseEnvironment reads
// (codec.EnvironmentArgs).
var EnvironmentArgs = codec.EnvironmentArgs

// ParseEnvironment decodes show-environment -s output: each name maps to
// its value, or to nil for a variable removed from this environment
// (codec.ParseEnvironment).
func ParseEnvironment(out []byte) (vars map[string]*string, skipped int) {
	return codec.ParseEnvironment(out)
}

// UnescapeStored undoes the escaping tmux applies when it stores a session
// or window name or a pane title (codec.UnescapeStored).
func UnescapeStored(s string) string { return codec.UnescapeStored(s) }
