package tools

import (
	"testing"
)

func TestServerHealth(t *testing.T) {
	e := newEnv(t, Readonly)
	var h struct {
		State  string `json:"state"`
		Socket string `json:"socket"`
	}
	e.ok("server_health", nil, &h)
	if h.State != "up" || h.Socket != e.tm.Socket {
		t.Errorf("server_health = %+v, want state up on %s", h, e.tm.Socket)
	}
	e.fails("server_health", map[string]any{"socket_name": []any{"x"}}, "argument socket_name: want string, got array")
}
