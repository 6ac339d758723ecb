package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// pipeFeeds tell PaneChanges subscribers that a pane printed where no
// watcher connection covers the pane: on tmux 3.2a, where a control
// client that receives output can crash the server
// (tmux.Capabilities.DeadPaneOutputCrash), and beyond Config.MaxWatchers.
// tmux copies a pane's output to a pipe-pane command; ours is `cat` into a
// FIFO in a directory of tmux-mcp's own (mode 0700), whose reading end
// tmux-mcp holds. A read wakes the pane's subscribers. The feed gives no
// proof for the capture cache (the FIFO is not ordered with command
// replies): it only says when to look again, as %output does for a wait.
//
// A pane has one pipe at most, and it may be somebody else's: a pane
// whose #{pane_pipe} is set is left alone (ErrNotWatched: its subscribers
// poll), and when another pipe-pane replaces ours, cat sees the end of
// its input and the feed ends: its subscribers' channels close and they
// ask again (and poll). The pipe is closed when the last subscriber of a
// pane leaves. Each feed costs one cat process while it lasts.
type pipeFeeds struct {
	// run runs a tmux command under supervision without dropping the
	// capture cache (pipe-pane changes nothing a capture shows).
	run func(ctx context.Context, args ...string) ([]byte, error)
	// timeout bounds each tmux command and the wait for cat to start.
	timeout time.Duration
	// max bounds the feeds open at once (and so the cat processes).
	max int

	mu     sync.Mutex
	dir    string // made on first use
	seq    int
	feeds  map[tmux.PaneID]*pipeFeed
	closed bool
}

// maxPipeFeeds is pipeFeeds.max by default.
const maxPipeFeeds = 64

// errPipeBusy: the pane already has a pipe that is not ours.
var errPipeBusy = errors.New("supervisor: the pane's output is already piped elsewhere")

type pipeFeed struct {
	pane tmux.PaneID
	path string
	file *os.File
	done chan struct{} // closed when the reader has seen the end

	mu   sync.Mutex
	subs map[*paneSub]struct{}
}

// subscribe returns a channel that receives a value each time pane
// prints, closed when the feed ends (the pane died, its pipe was
// replaced, supervision ended) or ctx ends.
func (p *pipeFeeds) subscribe(ctx context.Context, pane tmux.PaneID) (<-chan struct{}, func(), error) {
	sub := &paneSub{ch: make(chan struct{}, 1)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, nil, ErrNotWatched
	}
	f := p.feeds[pane]
	if f == nil || f.ended() {
		if len(p.feeds) >= p.max {
			p.mu.Unlock()
			return nil, nil, fmt.Errorf("%w: %d pipe feeds open", ErrNotWatched, p.max)
		}
		var err error
		// Opening holds mu: feeds of one server open one at a time, and a
		// second subscriber of the pane waits for the first's pipe.
		if f, err = p.open(ctx, pane); err != nil {
			p.mu.Unlock()
			return nil, nil, err
		}
		p.feeds[pane] = f
	}
	f.mu.Lock()
	f.subs[sub] = struct{}{}
	f.mu.Unlock()
	p.mu.Unlock()
	stopCtx := context.AfterFunc(ctx, func() { p.unsubscribe(f, sub) })
	return sub.ch, func() {
		stopCtx()
		p.unsubscribe(f, sub)
	}, nil
}

// open pipes pane's output into a new FIFO and starts its reader. p.mu
// is held.
func (p *pipeFeeds) open(ctx context.Context, pane tmux.PaneID) (*pipeFeed, error) {
	if p.dir == "" {
		dir, err := os.MkdirTemp("", "tmux-mcp-pipes-")
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotWatched, err)
		}
		p.dir = dir
	}
	p.seq++
	path := filepath.Join(p.dir, strconv.Itoa(p.seq))
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotWatched, err)
	}
	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	out, err := p.run(cctx, "display-message", "-p", "-t", string(pane), "#{pane_id} #{pane_pipe}")
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	if id, piped, _ := strings.Cut(strings.TrimSpace(string(out)), " "); id != string(pane) {
		os.Remove(path)
		return nil, paneNotFound(pane)
	} else if piped == "1" {
		os.Remove(path)
		return nil, fmt.Errorf("%w: %w", ErrNotWatched, errPipeBusy)
	}
	// The reading end opens when cat opens the writing end.
	reader := openFIFO(path)
	// No '#', '%' or quote in the path: the door passes it as it is.
	cmd := "exec cat >'" + path + "'"
	if _, err := p.run(cctx, "pipe-pane", "-O", "-t", string(pane), cmd); err != nil {
		if f := reader.release(); f != nil {
			f.Close()
		}
		os.Remove(path)
		return nil, err
	}
	var file *os.File
	select {
	case file = <-reader.opened:
	case <-cctx.Done():
		file = reader.release()
	}
	if file == nil {
		os.Remove(path)
		return nil, fmt.Errorf("%w: the pane's pipe did not start", ErrNotWatched)
	}
	f := &pipeFeed{pane: pane, path: path, file: file, subs: map[*paneSub]struct{}{}, done: make(chan struct{})}
	go p.read(f)
	return f, nil
}

// read wakes f's subscribers on every read, and ends the feed at the end
// of its input.
func (p *pipeFeeds) read(f *pipeFeed) {
	buf := make([]byte, 32<<10)
	for {
		n, err := f.file.Read(buf)
		if n > 0 {
			f.mu.Lock()
			for sub := range f.subs {
				select {
				case sub.ch <- struct{}{}:
				default:
				}
			}
			f.mu.Unlock()
		}
		if err != nil {
			break
		}
	}
	f.file.Close()
	os.Remove(f.path)
	p.mu.Lock()
	if p.feeds[f.pane] == f {
		delete(p.feeds, f.pane)
	}
	p.mu.Unlock()
	f.mu.Lock()
	close(f.done)
	subs := f.subs
	f.subs = map[*paneSub]struct{}{}
	f.mu.Unlock()
	for sub := range subs {
		sub.close()
	}
}

func (f *pipeFeed) ended() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// unsubscribe drops sub; the last subscriber's leaving closes the pipe.
func (p *pipeFeeds) unsubscribe(f *pipeFeed, sub *paneSub) {
	p.mu.Lock()
	f.mu.Lock()
	_, was := f.subs[sub]
	delete(f.subs, sub)
	last := was && len(f.subs) == 0 && !f.ended()
	f.mu.Unlock()
	if last && p.feeds[f.pane] == f {
		delete(p.feeds, f.pane)
	}
	p.mu.Unlock()
	sub.close()
	if last {
		p.stop(f)
	}
}

// stop closes f's pipe (pipe-pane without a command), unless it has
// already ended, and waits for the reader to see the end.
func (p *pipeFeeds) stop(f *pipeFeed) {
	if !f.ended() {
		ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
		// Only while the feed is still ours: had another pipe replaced
		// it, cat would have seen the end and the feed would be over.
		_, err := p.run(ctx, "pipe-pane", "-t", string(f.pane))
		cancel()
		if err != nil {
			// The pane or server is gone (cat sees the end then), or tmux
			// did not answer: let the reader go.
			f.file.SetReadDeadline(time.Unix(1, 0)) //nolint:errcheck
		}
	}
	select {
	case <-f.done:
	case <-time.After(p.timeout):
		f.file.SetReadDeadline(time.Unix(1, 0)) //nolint:errcheck
		<-f.done
	}
}

// close ends every feed and removes the directory.
func (p *pipeFeeds) close() {
	p.mu.Lock()
	p.closed = true
	feeds := p.feeds
	p.feeds = map[tmux.PaneID]*pipeFeed{}
	dir := p.dir
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, f := range feeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.stop(f)
		}()
	}
	wg.Wait()
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// count returns the feeds open (for server_health).
func (p *pipeFeeds) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.feeds)
}
