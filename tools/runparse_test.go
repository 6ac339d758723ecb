package tools

import (
	"slices"
	"testing"
)

// TestRunParseJoinedTypedLine: a typed line exactly as wide as the pane is
// captured (joined) with the row after it; the output still begins on
// that row.
func TestRunParseJoinedTypedLine(t *testing.T) {
	const n = "0123456789ab"
	tests := []struct {
		name    string
		file    string
		content string
		want    []string
	}{
		{"sourced file", "/tmp/d/" + n, "$  (eval 'echo got-it'); . /tmp/d/" + n + "got-it\n[tmux-mcp " + n + "] exit 0\n$\n",
			[]string{"got-it"}},
		{"quoted file", "/tmp/a b/" + n, "$  (eval 'x'); . '/tmp/a b/" + n + "'first\nsecond\n[tmux-mcp " + n + "] exit 0\n",
			[]string{"first", "second"}},
		{"inline end", "", "$  (eval 'x'); printf '[tmux-mcp %s] exit %s\\n' " + n + " \"$?\"; tmux -S s wait-for -S tmux_mcp_run_" + n +
			"out\n[tmux-mcp " + n + "] exit 0\n", []string{"out"}},
		{"not joined", "/tmp/d/" + n, "$  (eval 'x'); . /tmp/d/" + n + "\nout\n[tmux-mcp " + n + "] exit 0\n", []string{"out"}},
	}
	for _, tt := range tests {
		r := &run{nonce: n, file: tt.file}
		res, found, err := r.parse(tt.content, false)
		if err != nil || !found || !slices.Equal(res.Output, tt.want) || deref(res.ExitStatus) != 0 {
			t.Errorf("%s: parse = %q, found %v, exit %v, err %v; want %q", tt.name, res.Output, found, deref(res.ExitStatus), err, tt.want)
		}
	}
}
