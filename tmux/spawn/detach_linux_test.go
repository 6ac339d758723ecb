package spawn

import "testing"

func TestInSessionScope(t *testing.T) {
	tests := []struct {
		cgroup string
		want   bool
	}{
		{"0::/user.slice/user-1000.slice/session-3.scope\n", true},
		{"0::/user.slice/user-1000.slice/session-c2.scope\n", true},
		{"12:memory:/user.slice\n1:name=systemd:/user.slice/user-1000.slice/session-7.scope\n0::/\n", true},
		// The user manager's own scopes and services: logind does not end them with a session.
		{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1b2.scope\n", false},
		{"0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-kitty-4242.scope\n", false},
		{"0::/system.slice/ssh.service\n", false},
		{"4:memory:/process_api/5cd2\n0::/\n", false},
		// Another controller's path says nothing of the session.
		{"4:memory:/session-1.scope\n0::/\n", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := inSessionScope(tt.cgroup); got != tt.want {
			t.Errorf("inSessionScope(%q) = %v, want %v", tt.cgroup, got, tt.want)
		}
	}
}
