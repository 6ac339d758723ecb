package hosts

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestParseCallers: what a request's _meta carries is kept only where it
// can be compared, within bounds, whatever a client put there.
func TestParseCallers(t *testing.T) {
	pids := make([]int, 100)
	for i := range pids {
		pids[i] = 1000 + i
	}
	many := make([]map[string]any, 12)
	for i := range many {
		many[i] = map[string]any{"machine": "m", "pids": []int{2000 + i}}
	}
	tests := []struct {
		name  string
		raw   any
		want  string              // JSON of the result, or
		check func([]Caller) bool // when set
	}{
		{"none", nil, "null", nil},
		{"not a list", "x", "null", nil},
		{"a machine and PIDs", []map[string]any{{"machine": "m", "pids": []int{0, 1, 42, -3}}}, `[{"machine":"m","pids":[42]}]`, nil},
		{"a pane of tmux's form only", []map[string]any{{"machine": "m", "tmux_socket": "/s", "tmux_pane": "%3"}, {"machine": "m", "tmux_pane": "3;x"}},
			`[{"machine":"m","tmux_socket":"/s","tmux_pane":"%3"}]`, nil},
		{"no machine", []map[string]any{{"pids": []int{42}}}, "null", nil},
		{"a huge machine", []map[string]any{{"machine": strings.Repeat("m", 5000), "pids": []int{42}}}, "null", nil},
		{"at most 64 PIDs", []map[string]any{{"machine": "m", "pids": pids}}, "",
			func(got []Caller) bool { return len(got) == 1 && len(got[0].PIDs) == 64 && got[0].PIDs[0] == 1000 }},
		{"at most 8 callers", many, "", func(got []Caller) bool { return len(got) == 8 && got[7].PIDs[0] == 2007 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var meta *mcp.Meta
			if tt.raw != nil {
				meta = mcp.NewMetaFromMap(map[string]any{CallersKey: tt.raw})
			}
			got := ParseCallers(meta)
			if tt.check != nil {
				if !tt.check(got) {
					t.Errorf("ParseCallers = %+v", got)
				}
				return
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("ParseCallers = %s, want %s", b, tt.want)
			}
		})
	}
}

func TestMachineID(t *testing.T) {
	id := MachineID()
	if id == "" || id != MachineID() {
		t.Fatalf("MachineID() = %q", id)
	}
	t.Logf("MachineID() = %s", id)
}
