package drive

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func TestChunks(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want []string
	}{
		{"", 4, nil},
		{"abc", 4, []string{"abc"}},
		{"abcdefgh", 4, []string{"abcd", "efgh"}},
		{"ab;cdefg;", 3, []string{"ab", ";cd", "efg", ";"}},
		{"aé日b", 3, []string{"aé", "日", "b"}},
		{";;;;", 2, []string{";", ";", ";;"}},
	}
	for _, tt := range tests {
		got := Chunks(tt.in, tt.n)
		if !slices.Equal(got, tt.want) || strings.Join(got, "") != tt.in {
			t.Errorf("chunks(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestPaneLocks(t *testing.T) {
	io := NewPanes()
	ctx := context.Background()
	unlock, err := io.Lock(ctx, tmuxSocket("a"), "%1", "%2")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := io.Lock(short, tmuxSocket("a"), "%2"); err == nil {
		t.Fatal("lock of a held pane succeeded, want it to wait until the context ends")
	}
	other, err := io.Lock(ctx, tmuxSocket("b"), "%2")
	if err != nil {
		t.Fatalf("lock of the same pane on another server: %v", err)
	}
	other()
	unlock()
	again, err := io.Lock(ctx, tmuxSocket("a"), "%2", "%1", "%1")
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
	if n := len(io.locks); n != 0 {
		t.Errorf("%d locks left after every holder released, want 0", n)
	}
}

func tmuxSocket(name string) tmux.Socket { return tmux.Socket{Name: name} }
