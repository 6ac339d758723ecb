package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestUnescapeHTML(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"escapes in a string", `{"t":"\u003cdiv\u003ea \u0026\u0026 b\u003c/div\u003e"}`, `{"t":"<div>a && b</div>"}`},
		{"an escaped backslash before u003c stays", `{"t":"\\u003c"}`, `{"t":"\\u003c"}`},
		{"other escapes stay", `{"t":"\"\n\u2028\u0001"}`, `{"t":"\"\n\u2028\u0001"}`},
		{"outside strings untouched", `{"a":1,"b":[true,null]}`, `{"a":1,"b":[true,null]}`},
		{"escaped quote does not end the string", `{"t":"\"\u0026"}`, `{"t":"\"&"}`},
		{"a key", `{"\u003ck\u003e":"v"}`, `{"<k>":"v"}`},
		{"truncated escape at the end", `"\u00`, `"\u00`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(unescapeHTML([]byte(tt.in))); got != tt.want {
				t.Errorf("unescapeHTML(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestUnescapeHTMLKeepsValues encodes values with json.Marshal and checks
// that the rewritten text decodes to the same value, without the escapes.
func TestUnescapeHTMLKeepsValues(t *testing.T) {
	for _, v := range []any{
		map[string]any{"text": `<div class="x">a && b -> c</div>`, `k\u003c`: `\u0026 \\u003e`},
		[]any{"<", ">", "&", `\`, `\\`, "\"<\"", "\u2028", 1.5, nil},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got := unescapeHTML(b)
		var want, back any
		json.Unmarshal(b, &want) //nolint:errcheck // just encoded
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if gb, wb := mustJSON(t, back), mustJSON(t, want); !bytes.Equal(gb, wb) {
			t.Errorf("decoded %s, want %s", gb, wb)
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if bytes.Contains(bytes.ReplaceAll(got, []byte(`\\`), nil), []byte(esc)) {
				t.Errorf("%s still has %s", got, esc)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUnescapeWriterHoldsPartialFrames(t *testing.T) {
	var out bytes.Buffer
	w := newUnescapeWriter(&out)
	for _, part := range []string{`{"t":"\u00`, `3c"}`, "\n", `{"u":"\u0026"}` + "\n" + `{"v"`} {
		if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write(%q) = %d, %v", part, n, err)
		}
	}
	if got, want := out.String(), `{"t":"<"}`+"\n"+`{"u":"&"}`+"\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// htmlLine is pane text with every character json.Marshal escapes for
// HTML.
const htmlLine = `<div class="x">a && b -> c</div>`

// TestStdioResultsAreNotHTMLEscaped drives the built binary: a pane
// prints htmlLine; capture_pane, snapshot_pane and wait_for_text return
// it with <, > and & as printed, in the text a model reads and in the
// frame on the wire.
func TestStdioResultsAreNotHTMLEscaped(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	// Printed again and again, so that a wait started at any time sees it
	// as new output.
	pane := tm.MustTmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
		`while :; do echo '`+htmlLine+`'; sleep 0.2; done`)
	tmuxtest.WaitFor(t, 10*time.Second, "the HTML line", func() bool {
		out, _ := tm.Tmux("capture-pane", "-p", "-t", pane)
		return strings.Contains(out, htmlLine)
	})
	cmd := exec.Command(bin, "serve")
	cmd.Env = binaryEnv(tm.Socket)
	r := startWire(t, cmd)
	r.initialize()
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"capture_pane", map[string]any{"pane_id": pane}},
		{"snapshot_pane", map[string]any{"pane_id": pane}},
		{"wait_for_text", map[string]any{"pane_id": pane, "patterns": []any{"c</div>"}}},
	} {
		line, res := r.call(tt.tool, tt.args)
		if res.IsError || !strings.Contains(res.text(), "a && b -> c</div>") {
			t.Errorf("%s: text %.300q, want it to hold %q", tt.tool, res.text(), htmlLine)
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if strings.Contains(res.text(), esc) {
				t.Errorf("%s: the text has %s: %.300s", tt.tool, esc, res.text())
			}
			if strings.Contains(line, esc) {
				t.Errorf("%s: the frame has %s: %.300s", tt.tool, esc, line)
			}
		}
	}
}
