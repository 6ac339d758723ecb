package capture

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func intp(i int) *int { return &i }

func TestPlanCapture(t *testing.T) {
	cfg := Limits{Lines: 500, Bytes: 256 << 10, MaxLines: 10000, MaxBytes: 4 << 20} // the supervisor's defaults: 500 lines, 256 KiB; ceilings 10,000 lines, 4 MiB
	tests := []struct {
		name   string
		req    Request
		height int
		want   Plan
		err    string
	}{
		{"visible screen", Request{}, 40,
			Plan{MaxLines: 500, MaxBytes: 256 << 10}, ""},
		{"visible screen, height unknown", Request{}, 0,
			Plan{MaxLines: 500, MaxBytes: 256 << 10}, ""},
		{"screen taller than the cap", Request{MaxLines: 10}, 40,
			Plan{Start: "30", MaxLines: 10, MaxBytes: 256 << 10, Narrowed: true}, ""},
		{"full history, height known", Request{FullHistory: true}, 40,
			Plan{Start: "-460", MaxLines: 500, MaxBytes: 256 << 10, Narrowed: true}, ""},
		{"full history, height unknown", Request{FullHistory: true}, 0,
			Plan{Start: "-500", MaxLines: 500, MaxBytes: 256 << 10, Narrowed: true}, ""},
		{"full history overrides start", Request{FullHistory: true, Start: intp(-3), MaxLines: 100}, 40,
			Plan{Start: "-60", MaxLines: 100, MaxBytes: 256 << 10, Narrowed: true}, ""},
		{"start within the cap", Request{Start: intp(-100)}, 40,
			Plan{Start: "-100", MaxLines: 500, MaxBytes: 256 << 10}, ""},
		{"start beyond the cap keeps the tail", Request{Start: intp(-100000), MaxLines: 1000}, 40,
			Plan{Start: "-960", MaxLines: 1000, MaxBytes: 256 << 10, Narrowed: true}, ""},
		{"start beyond the cap, height unknown", Request{Start: intp(-100000)}, 0,
			Plan{Start: "-500", MaxLines: 500, MaxBytes: 256 << 10, Narrowed: true}, ""},
		{"range in history", Request{Start: intp(-2000), End: intp(-1000)}, 0,
			Plan{Start: "-1499", End: "-1000", MaxLines: 500, MaxBytes: 256 << 10, Narrowed: true}, ""},
		{"small range", Request{Start: intp(-5), End: intp(5)}, 40,
			Plan{Start: "-5", End: "5", MaxLines: 500, MaxBytes: 256 << 10}, ""},
		{"end below the screen is clamped like tmux", Request{Start: intp(-1000), End: intp(1000), MaxLines: 50}, 40,
			Plan{Start: "-10", End: "1000", MaxLines: 50, MaxBytes: 256 << 10, Narrowed: true}, ""},
		{"raised caps within the ceilings", Request{MaxLines: 10000, MaxBytes: 4 << 20}, 40,
			Plan{MaxLines: 10000, MaxBytes: 4 << 20}, ""},
		{"max_lines above the ceiling", Request{MaxLines: 10001}, 40, Plan{},
			"max_lines 10001 is above the ceiling of 10000 lines"},
		{"max_bytes above the ceiling", Request{MaxBytes: 5 << 20}, 40, Plan{},
			"max_bytes 5242880 is above the ceiling of 4194304 bytes"},
		{"negative max_lines", Request{MaxLines: -1}, 40, Plan{}, "max_lines must be positive, got -1"},
		{"negative max_bytes", Request{MaxBytes: -1}, 40, Plan{}, "max_bytes must be positive, got -1"},
		{"start after end", Request{Start: intp(5), End: intp(2)}, 40, Plan{}, "start (5) is after end (2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewPlan(tt.req, cfg, tt.height)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if got != tt.want || gotErr != tt.err {
				t.Errorf("NewPlan() = %+v, %q; want %+v, %q", got, gotErr, tt.want, tt.err)
			}
			if got.Start == "-" {
				t.Errorf("NewPlan() sends -S - to tmux")
			}
		})
	}
}

// TestPlanCaptureRealTmux checks the plan's arithmetic against what tmux
// 3.3a returns: at most MaxLines lines (height known), ending at the bottom.
func TestPlanCaptureRealTmux(t *testing.T) {
	s := tmuxtest.New(t)
	s.Start("x")
	// A command, not keys typed into an interactive shell whose start-up
	// files may take their time.
	s.MustTmux("respawn-pane", "-k", "-t", "x", "seq 1 300; exec sleep 600")
	tmuxtest.WaitFor(t, 5*time.Second, "seq output", func() bool {
		out, _ := s.Tmux("capture-pane", "-p", "-t", "x")
		return strings.Contains(out, "\n300")
	})
	cfg := Limits{Lines: 500, Bytes: 256 << 10, MaxLines: 10000, MaxBytes: 4 << 20}
	for _, req := range []Request{
		{FullHistory: true, MaxLines: 50},
		{Start: intp(-100000), MaxLines: 120},
		{MaxLines: 7},
	} {
		plan, err := NewPlan(req, cfg, 40)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"capture-pane", "-p", "-t", "x"}
		if plan.Start != "" {
			args = append(args, "-S", plan.Start)
		}
		if plan.End != "" {
			args = append(args, "-E", plan.End)
		}
		out := rawTmux(t, s, args...)
		full := rawTmux(t, s, "capture-pane", "-p", "-t", "x", "-S", "-")
		if got := countLines([]byte(out)); got != plan.MaxLines {
			t.Errorf("%+v: tmux returned %d lines, want %d", req, got, plan.MaxLines)
		}
		if !strings.HasSuffix(full, out) {
			t.Errorf("%+v: capture is not the tail of the full history", req)
		}
	}
}

// rawTmux runs tmux and returns its stdout untrimmed (MustTmux trims the
// blank lines at the bottom of a capture).
func rawTmux(t *testing.T, s *tmuxtest.Server, args ...string) string {
	t.Helper()
	cmd := exec.Command(tmuxtest.Binary(t), append([]string{"-S", s.Socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = tmuxtest.Env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tmux %v: %v", args, err)
	}
	return string(out)
}

func TestTruncateTail(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		maxLines  int
		maxBytes  int
		want      string
		wantLines int
		wantBytes int
	}{
		{"no caps", "a\nb\n", 0, 0, "a\nb\n", 0, 0},
		{"fits", "a\nb\nc\n", 3, 100, "a\nb\nc\n", 0, 0},
		{"empty", "", 5, 5, "", 0, 0},
		{"last lines", "1\n2\n3\n4\n5\n", 2, 0, "4\n5\n", 3, 6},
		{"last line without newline", "1\n2\n3", 2, 0, "2\n3", 1, 2},
		{"empty lines count", "\n\n\nx\n", 2, 0, "\nx\n", 2, 2},
		{"bytes cut on a line boundary", "aaaa\nbbbb\ncccc\n", 0, 10, "bbbb\ncccc\n", 1, 5},
		{"bytes cut mid-line moves to the next line", "aaaa\nbbbb\ncccc\n", 0, 8, "cccc\n", 2, 10},
		{"one long line cut inside a 2-byte rune", "héllo wörld\n", 0, 5, "rld\n", 0, 10},
		{"cut inside a 3-byte rune", "€€€€\n", 0, 8, "€€\n", 0, 6},
		{"cut inside a 4-byte rune", "x😀😀\n", 0, 6, "😀\n", 0, 5},
		{"lines then bytes", "one\ntwo\nthree\nfour\n", 3, 12, "three\nfour\n", 2, 8},
		{"CJK tail", "前\n日本語のテキスト\n", 1, 10, "キスト\n", 1, 19},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, lines, n := TruncateTail([]byte(tt.in), tt.maxLines, tt.maxBytes)
			if string(got) != tt.want || lines != tt.wantLines || n != tt.wantBytes {
				t.Errorf("TruncateTail(%q, %d, %d) = %q, %d, %d; want %q, %d, %d",
					tt.in, tt.maxLines, tt.maxBytes, got, lines, n, tt.want, tt.wantLines, tt.wantBytes)
			}
			if !utf8.Valid(got) {
				t.Errorf("TruncateTail(%q) = %q: invalid UTF-8", tt.in, got)
			}
			if tt.maxBytes > 0 && len(got) > tt.maxBytes {
				t.Errorf("len = %d, above max %d", len(got), tt.maxBytes)
			}
		})
	}
}

func FuzzTruncateTail(f *testing.F) {
	f.Add("héllo\nwörld\n€€€\n", 2, 7)
	f.Add("x😀😀\n", 1, 6)
	f.Fuzz(func(t *testing.T, in string, maxLines, maxBytes int) {
		maxLines, maxBytes = maxLines%50, maxBytes%200
		got, lines, n := TruncateTail([]byte(in), maxLines, maxBytes)
		if !strings.HasSuffix(in, string(got)) {
			t.Fatalf("%q is not a suffix of %q", got, in)
		}
		if maxBytes > 0 && len(got) > maxBytes {
			t.Fatalf("len %d above %d", len(got), maxBytes)
		}
		if maxLines > 0 && countLines(got) > maxLines {
			t.Fatalf("%d lines above %d", countLines(got), maxLines)
		}
		if utf8.ValidString(in) && !utf8.Valid(got) {
			t.Fatalf("valid input %q gave invalid %q", in, got)
		}
		if n != len(in)-len(got) || lines < 0 {
			t.Fatal(fmt.Sprint("bad counts ", lines, n))
		}
	})
}
