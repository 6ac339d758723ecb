package journal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

// The tests below run this test binary again as helper processes: stand-ins
// for tmux-mcp processes that share one journal. JOURNAL_TEST_HELPER picks
// the role; JOURNAL_TEST_PATH is the journal.
func TestMain(m *testing.M) {
	role := os.Getenv("JOURNAL_TEST_HELPER")
	if role == "" {
		// Panes of the servers the tests start run sh, not the login shell
		// of whoever runs the tests: its start-up files can take seconds
		// (and tests must not depend on them).
		os.Setenv("SHELL", "/bin/sh")
		os.Exit(m.Run())
	}
	os.Exit(helperMain(role))
}

func helperMain(role string) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	j, err := Open(os.Getenv("JOURNAL_TEST_PATH"), &Options{Logger: log, LockTimeout: 5 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper open:", err)
		return 1
	}
	id := os.Getenv("JOURNAL_TEST_ID")
	d, _ := time.ParseDuration(os.Getenv("JOURNAL_TEST_DURATION"))
	errs := 0
	switch role {
	case "writer":
		// Events at about 1,000 a second and a snapshot every 25 events,
		// as a busy tmux-mcp would never produce.
		n := 0
		for end := time.Now().Add(d); time.Now().Before(end); n++ {
			j.Append(supervisor.Event{Type: supervisor.EventStructure, Socket: testSock, Detail: id + " " + strconv.Itoa(n)})
			if n%25 == 0 {
				s := testSnapshotN(n)
				s.Sessions[0].Name = "writer " + id
				if _, err := j.storeSnapshot(testSock, s); err != nil {
					fmt.Fprintln(os.Stderr, "store:", err)
					errs++
				}
			}
			time.Sleep(time.Millisecond)
		}
		fmt.Printf("appended %d\n", n)
	case "reader":
		reads := 0
		for end := time.Now().Add(d); time.Now().Before(end); reads++ {
			if _, err := j.Events(testSock, time.Time{}, 200); err != nil {
				fmt.Fprintln(os.Stderr, "events:", err)
				errs++
			}
			if _, err := j.Snapshots(testSock, 5); err != nil {
				fmt.Fprintln(os.Stderr, "snapshots:", err)
				errs++
			}
			if _, err := j.Snapshot(testSock, 0); err != nil && !errors.Is(err, ErrNoSnapshot) {
				fmt.Fprintln(os.Stderr, "snapshot:", err)
				errs++
			}
		}
		fmt.Printf("reads %d\n", reads)
	case "compactor":
		n := 0
		for end := time.Now().Add(d); time.Now().Before(end); n++ {
			if _, _, err := j.Compact(); err != nil {
				fmt.Fprintln(os.Stderr, "compact:", err)
				errs++
			}
			time.Sleep(50 * time.Millisecond)
		}
		fmt.Printf("compactions %d\n", n)
	case "committer":
		// Stores snapshots and events until killed, saying which snapshot
		// it committed after each commit.
		for n := 0; ; n++ {
			j.Append(supervisor.Event{Type: supervisor.EventStructure, Socket: testSock, Detail: strconv.Itoa(n)})
			if _, err := j.storeSnapshot(testSock, testSnapshotN(n)); err != nil {
				fmt.Fprintln(os.Stderr, "store:", err)
				return 1
			}
			fmt.Printf("committed %d\n", n)
		}
	}
	if err := j.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
		errs++
	}
	if errs > 0 {
		return 1
	}
	return 0
}

// helper starts this test binary as a helper process.
func helper(t *testing.T, role, path, id string, d time.Duration) (*exec.Cmd, *strings.Builder, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "JOURNAL_TEST_HELPER="+role, "JOURNAL_TEST_PATH="+path,
		"JOURNAL_TEST_ID="+id, "JOURNAL_TEST_DURATION="+d.String())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &stdout, &stderr
}

// soakDuration is how long the shared-journal test runs: 30s, 3s with
// -short, or $JOURNAL_SOAK.
func soakDuration(t *testing.T) time.Duration {
	if v := os.Getenv("JOURNAL_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("JOURNAL_SOAK=%q: %v", v, err)
		}
		return d
	}
	if testing.Short() {
		return 3 * time.Second
	}
	return 30 * time.Second
}

// TestProcessesShareTheJournal runs two writer processes for the soak
// duration while a third reads: no process sees an error or logs a
// warning, and every event each writer appended is in the file once.
func TestProcessesShareTheJournal(t *testing.T) {
	d := soakDuration(t)
	path := filepath.Join(t.TempDir(), "journal.db")
	procs := map[string]sharer{}
	for _, id := range []string{"w1", "w2"} {
		c, o, e := helper(t, "writer", path, id, d)
		procs[id] = sharer{c, o, e}
	}
	c, o, e := helper(t, "reader", path, "r", d)
	procs["r"] = sharer{c, o, e}
	checkShared(t, path, procs)
}

// TestCompactWhileOthersWrite compacts the file (a rewrite and a rename)
// over and over while a writer and a reader use it: nothing is lost.
func TestCompactWhileOthersWrite(t *testing.T) {
	d := 3 * time.Second
	path := filepath.Join(t.TempDir(), "journal.db")
	procs := map[string]sharer{}
	c, o, e := helper(t, "writer", path, "w1", d)
	procs["w1"] = sharer{c, o, e}
	c, o, e = helper(t, "reader", path, "r", d)
	procs["r"] = sharer{c, o, e}
	c, o, e = helper(t, "compactor", path, "c", d)
	procs["c"] = sharer{c, o, e}
	checkShared(t, path, procs)
}

type sharer struct {
	cmd            *exec.Cmd
	stdout, stderr *strings.Builder
}

// checkShared waits for the helpers and checks that none failed or
// warned, and that every event of every writer (w*) is in the file once.
func checkShared(t *testing.T, path string, procs map[string]sharer) {
	t.Helper()
	appended := map[string]int{}
	for id, p := range procs {
		err := p.cmd.Wait()
		if err != nil || p.stderr.Len() > 0 {
			t.Errorf("%s: %v, stderr:\n%s", id, err, p.stderr.String())
		}
		if strings.HasPrefix(id, "w") {
			var n int
			fmt.Sscanf(p.stdout.String(), "appended %d", &n)
			appended[id] = n
		}
		t.Logf("%s: %s", id, strings.TrimSpace(p.stdout.String()))
	}
	j, _ := mustOpen(t, path, nil)
	records, err := j.Events(testSock, time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[int]int{}
	for id := range appended {
		seen[id] = map[int]int{}
	}
	for _, r := range records {
		if r.Type != supervisor.EventStructure {
			continue
		}
		var id string
		var n int
		if _, err := fmt.Sscanf(r.Detail, "%s %d", &id, &n); err != nil || seen[id] == nil {
			t.Errorf("unexpected event %+v", r)
			continue
		}
		seen[id][n]++
	}
	for id, want := range appended {
		if want == 0 {
			t.Errorf("%s appended nothing", id)
		}
		lost, dup := 0, 0
		for n := range want {
			switch seen[id][n] {
			case 0:
				lost++
			case 1:
			default:
				dup++
			}
		}
		if lost > 0 || dup > 0 || len(seen[id]) != want {
			t.Errorf("%s: appended %d events; %d lost, %d duplicated, %d in the file", id, want, lost, dup, len(seen[id]))
		}
	}
}

// TestKill9MidWrite kills a process writing to the journal with SIGKILL 50
// times, at random moments: every time the file passes bbolt's check, and
// the last snapshot the process reported committed (or a later one) is
// there and intact.
func TestKill9MidWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	for round := range 50 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "JOURNAL_TEST_HELPER=committer", "JOURNAL_TEST_PATH="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		committed := -1
		var once sync.Once
		kill := func() { once.Do(func() { cmd.Process.Signal(syscall.SIGKILL) }) }
		// Let it commit a few snapshots, then kill it a random moment later:
		// usually in the middle of a transaction.
		wantCommits := 1 + rand.IntN(5)
		for lines.Scan() {
			if _, err := fmt.Sscanf(lines.Text(), "committed %d", &committed); err != nil {
				t.Fatalf("round %d: helper said %q", round, lines.Text())
			}
			if wantCommits--; wantCommits == 0 {
				time.AfterFunc(time.Duration(rand.IntN(3000))*time.Microsecond, kill)
			}
		}
		kill()
		cmd.Wait()
		if committed < 0 {
			t.Fatalf("round %d: the helper committed nothing: %s", round, stderr.String())
		}
		if err := CheckFile(path, 5*time.Second); err != nil {
			t.Fatalf("round %d: journal check: %v", round, err)
		}
		j, err := Open(path, nil)
		if err != nil {
			t.Fatalf("round %d: open: %v", round, err)
		}
		if m, _ := filepath.Glob(path + ".corrupt-*"); len(m) > 0 {
			t.Fatalf("round %d: the file was moved aside: %v", round, m)
		}
		snap, err := j.Snapshot(testSock, 0)
		if err != nil {
			t.Fatalf("round %d: latest snapshot: %v", round, err)
		}
		var n int
		fmt.Sscanf(snap.Sessions[0].Windows[0].Panes[0].Title, "title %d", &n)
		if n < committed {
			t.Errorf("round %d: latest snapshot is number %d, want at least %d (reported committed)", round, n, committed)
		}
		if got := snap.digest(); got != snap.Digest {
			t.Errorf("round %d: latest snapshot's digest %s, content hashes to %s", round, snap.Digest, got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = j.Flush(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		j.Close()
	}
}
