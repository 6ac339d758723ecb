// Package sshdtest starts OpenSSH's sshd on a loopback port for tests: a
// simulated host with its own host key, the one client key it admits, its
// own environment for the commands it runs (HOME, the tmux socket, the
// journal), and an ssh client configuration that checks its host key. It
// stops and starts the daemon and kills the connections it serves, the
// faults the hosts tests inject. Nothing listens beyond 127.0.0.1.
package sshdtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is one sshd.
type Server struct {
	t    testing.TB
	dir  string
	bin  string
	Port int
	// User is the login, the user the tests run as.
	User string
	// SSH is the ssh command that reaches this server: ssh -F its config.
	SSH []string
	cmd *exec.Cmd
}

// Binary returns sshd's path, or skips (fails under CI) when OpenSSH's
// server is not installed.
func Binary(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd"} {
		if _, err := os.Stat(p); err == nil {
			if _, err := exec.LookPath("ssh"); err == nil {
				return p
			}
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("sshd and ssh are needed (apt-get install openssh-server openssh-client; .ci/run installs them)")
	}
	t.Skip("sshd or ssh not installed (apt-get install openssh-server openssh-client)")
	return ""
}

// Start starts an sshd whose sessions get env (NAME=VALUE, no spaces).
func Start(t testing.TB, env []string) *Server {
	t.Helper()
	s := &Server{t: t, bin: Binary(t), dir: t.TempDir()}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	s.User = u.Username
	if os.Geteuid() == 0 {
		// sshd run by root wants its privilege separation directory.
		_ = os.MkdirAll("/run/sshd", 0o755)
	}
	for _, k := range []string{"host_key", "id"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sshdtest", "-f", filepath.Join(s.dir, k)).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	s.Port = freePort(t)
	pub, err := os.ReadFile(filepath.Join(s.dir, "id.pub"))
	if err != nil {
		t.Fatal(err)
	}
	s.write("authorized_keys", string(pub))
	hostPub, err := os.ReadFile(filepath.Join(s.dir, "host_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(hostPub))
	s.write("known_hosts", fmt.Sprintf("[127.0.0.1]:%d %s %s\n", s.Port, f[0], f[1]))
	for _, kv := range env {
		if strings.ContainsAny(kv, " \t\"") || !strings.Contains(kv, "=") {
			t.Fatalf("sshdtest: env %q: want NAME=VALUE without spaces or quotes", kv)
		}
	}
	sort.Strings(env)
	cfg := []string{
		fmt.Sprintf("ListenAddress 127.0.0.1:%d", s.Port),
		"HostKey " + filepath.Join(s.dir, "host_key"),
		"AuthorizedKeysFile " + filepath.Join(s.dir, "authorized_keys"),
		"PubkeyAuthentication yes", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password", "UsePAM no", "StrictModes no",
		"PidFile " + filepath.Join(s.dir, "sshd.pid"), "LogLevel ERROR", "MaxStartups 50",
		"ClientAliveInterval 2", "ClientAliveCountMax 3",
	}
	if len(env) > 0 {
		cfg = append(cfg, "SetEnv "+strings.Join(env, " "))
	}
	s.write("sshd_config", strings.Join(cfg, "\n")+"\n")
	s.write("ssh_config", strings.Join([]string{
		"Host *",
		"  IdentityFile " + filepath.Join(s.dir, "id"),
		"  IdentitiesOnly yes",
		"  UserKnownHostsFile " + filepath.Join(s.dir, "known_hosts"),
		"  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes",
		"  LogLevel ERROR",
		"  ConnectTimeout 5",
		"",
	}, "\n"))
	s.SSH = []string{"ssh", "-F", filepath.Join(s.dir, "ssh_config")}
	s.StartDaemon()
	t.Cleanup(s.Stop)
	return s
}

// URL is the --host value for this server under name.
func (s *Server) URL(name string) string {
	return fmt.Sprintf("%s=ssh://%s@127.0.0.1:%d", name, s.User, s.Port)
}

func (s *Server) write(name, content string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, name), []byte(content), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// StartDaemon starts sshd (again) on the same port and keys, and waits
// until it accepts connections.
func (s *Server) StartDaemon() {
	s.t.Helper()
	cmd := exec.Command(s.bin, "-D", "-e", "-f", filepath.Join(s.dir, "sshd_config"))
	cmd.Stderr = &prefixed{t: s.t}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("sshd: %v", err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("sshd did not listen on %d: %v", s.Port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops sshd and every connection it serves, and what those run
// (SIGKILL), as a machine going down does; it returns once they are gone.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	procs := s.SessionProcesses()
	for _, pid := range procs {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	s.cmd = nil
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range procs {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// alive reports whether pid runs (a zombie has ended).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// KillSessions kills the processes serving the connections (sshd's
// children), as a dropped network connection ends them; sshd itself
// keeps listening. It returns how many it killed.
func (s *Server) KillSessions() int {
	if s.cmd == nil {
		return 0
	}
	n := 0
	for _, pid := range children(s.cmd.Process.Pid) {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// EndSessions ends every ssh session as logind or sshd ends a login
// session: the sessions of the processes sshd runs for its connections
// and of the commands they run (the remote shell's) lose every process,
// by SIGKILL, found by session ID among all processes; what left its
// session (setsid) stays, wherever it was started. sshd itself keeps
// listening. It returns the PIDs it killed, once they are gone.
func (s *Server) EndSessions() []int {
	if s.cmd == nil {
		return nil
	}
	keep := map[int]bool{0: true, 1: true, s.sid(os.Getpid()): true, s.sid(s.cmd.Process.Pid): true}
	// The login sessions: those of sshd's processes for the connections,
	// and those their commands run in (sshd starts each in a session of
	// its own); not those that what runs there made for itself.
	sids := map[int]bool{}
	var walk func(pid int)
	walk = func(pid int) {
		for _, c := range children(pid) {
			if sid := s.sid(c); !keep[sid] {
				sids[sid] = true
			}
			if isSSHD(c) {
				walk(c)
			}
		}
	}
	walk(s.cmd.Process.Pid)
	var killed []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid <= 1 || !sids[s.sid(pid)] {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range killed {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	return killed
}

// isSSHD reports whether pid runs sshd (or OpenSSH 9.8's sshd-session
// and sshd-auth, which serve a connection).
func isSSHD(pid int) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return false
	}
	switch filepath.Base(exe) {
	case "sshd", "sshd-session", "sshd-auth":
		return true
	}
	return false
}

// sid returns pid's session ID, 0 when it cannot be read.
func (s *Server) sid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	// After the name: state, ppid, pgrp, session.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return 0
	}
	n, _ := strconv.Atoi(f[3])
	return n
}

// children returns the PIDs of pid's child processes.
func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, w := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(w); err == nil && n > 0 {
				out = append(out, n)
			}
		}
	}
	return out
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// prefixed logs sshd's stderr through the test.
type prefixed struct{ t testing.TB }

func (p *prefixed) Write(b []byte) (int, error) {
	if strings.Contains(string(b), "kex_exchange_identification") {
		return len(b), nil // StartDaemon's probe of the port
	}
	p.t.Logf("sshd: %s", strings.TrimSpace(string(b)))
	return len(b), nil
}

// ClientConfig writes an ssh client configuration that reaches every
// server given (their keys and host keys together: tmux-mcp has one --ssh
// for all its hosts) and returns the ssh command that uses it.
func ClientConfig(t testing.TB, servers ...*Server) []string {
	t.Helper()
	lines := []string{"Host *"}
	var known []string
	for _, s := range servers {
		lines = append(lines, "  IdentityFile "+filepath.Join(s.dir, "id"))
		known = append(known, filepath.Join(s.dir, "known_hosts"))
	}
	lines = append(lines, "  IdentitiesOnly yes", "  UserKnownHostsFile "+strings.Join(known, " "),
		"  GlobalKnownHostsFile /dev/null", "  StrictHostKeyChecking yes", "  LogLevel ERROR", "  ConnectTimeout 5", "")
	path := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"ssh", "-F", path}
}

// SessionProcesses returns the PIDs of every process below sshd: the
// connections' sshd processes and what they run (the remote tmux-mcp).
func (s *Server) SessionProcesses() []int {
	if s.cmd == nil {
		return nil
	}
	var out []int
	queue := children(s.cmd.Process.Pid)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		out = append(out, pid)
		queue = append(queue, children(pid)...)
	}
	return out
}
