package tmuxtest

import (
	"os"
	"strings"
	"time"
)

// PanePath returns the current directory of the pane target names, once
// the pane's process has run its command. Until then tmux reads a new
// pane's directory as empty and then as the server's own, whatever -c
// said. Started means the pane's process no longer runs the server's
// executable (the rule of tmux.PaneStarting, which this
// package cannot import); where /proc cannot tell, the pane counts as
// started.
func (s *Server) PanePath(target string) string {
	s.t.Helper()
	WaitFor(s.t, 10*time.Second, "pane "+target+" to run its command", func() bool {
		out, err := s.Tmux("display-message", "-p", "-t", target, "#{pid} #{pane_pid}")
		server, pane, ok := strings.Cut(out, " ")
		if err != nil || !ok {
			return false
		}
		exe, err := os.Readlink("/proc/" + server + "/exe")
		if err != nil {
			return true
		}
		paneExe, err := os.Readlink("/proc/" + pane + "/exe")
		return err != nil || paneExe != exe
	})
	return s.MustTmux("display-message", "-p", "-t", target, "#{pane_current_path}")
}
