// Package browsertest runs Debian's chromium headless for the view's
// tests, through chromedp. Without chromium a test skips with the reason,
// and fails under CI (where .ci/run installs it).
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Candidates are the names chromium goes by, in the order tried;
// $TMUX_MCP_TEST_CHROMIUM names another.
var Candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Path returns the browser to run, or "" when none is installed.
func Path() string {
	if p := os.Getenv("TMUX_MCP_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range Candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts a headless browser for t (ended at cleanup) and returns a
// context of its first tab. Width and height size the window.
func New(t testing.TB, width, height int) context.Context {
	t.Helper()
	path := Path()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("browsertest: chromium is not installed; .ci/run installs it (apt-get install chromium)")
		}
		t.Skip("browsertest: chromium is not installed (apt-get install chromium, or set TMUX_MCP_TEST_CHROMIUM)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
		// Root in a container has no user namespaces for the sandbox.
		chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("force-device-scale-factor", "1"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("browsertest: start %s: %v", path, err)
	}
	return ctx
}
