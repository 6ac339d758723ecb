package e2etest

import (
	"io"
	"os"
	"testing"
)

// OtherUID is the other local user of the attack tests (a fake tmux
// server, another web server). It needs no account: the kernel runs a
// process as any uid root names.
const OtherUID = 4001

// CopyExecutable copies the running test binary to dst, mode 0755, so
// that another uid can run it (go test's build directory is private).
func CopyExecutable(t *testing.T, dst string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, dst); err == nil {
		Chmod(t, dst, 0o755)
		return
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// Chmod sets mode; os.FileMode's sticky bit is not the kernel's, so it
// is translated.
func Chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	m := mode.Perm()
	if mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	if err := os.Chmod(path, m); err != nil {
		t.Fatal(err)
	}
}
