package marks

import (
	"sync"
	"time"
)

// Command is one command the marks of a pane say it ran: from its C mark
// (its output begins) to its D mark.
type Command struct {
	Seq    uint64    // 1 for the first command the pane was seen to run
	Start  time.Time // when its C mark was read
	End    time.Time // when its D mark was read; zero while it runs
	Status int       // its exit status, or -1 when its D mark gave none
}

// State is what the marks say of one pane.
type State struct {
	// Marked says the pane's output has held a mark since it was first
	// watched: its shell marks its prompts.
	Marked bool
	// AtPrompt: a prompt was drawn (A or B came last). Running: a command
	// runs (C came last). Neither, when marks were missed (Unsure) or the
	// last command ended and no prompt followed yet.
	AtPrompt, Running bool
	// Unsure says output may have been missed since the last mark (tmux
	// paused the pane's output, or the reader changed): the next A or C
	// mark makes the state sure again.
	Unsure bool
	// Prompts counts the A marks read; Ended the commands that ended.
	Prompts, Ended uint64
	// Ends counts the D marks read, EndStatus is the last one's status:
	// the end the tail (Tracker.Tail) is reckoned from. A command that
	// prints a D of its own is followed by the shell's own: the last is
	// the shell's.
	Ends      uint64
	EndStatus int
	// LastKind is the last mark read: at a prompt, B for a shell that
	// marks where its prompt ends, A for one that marks only its start.
	LastKind Kind
	// Last is the running command (Running), else the last that ended.
	Last Command
	// Bytes counts the output read of the pane: a caller that reads the
	// screen between two States sees whether the pane printed meanwhile.
	Bytes uint64
}

// DefaultKeep is how many ended commands a Tracker keeps per pane.
const DefaultKeep = 256

// Tracker keeps what the marks of each pane say. Panes are fed by one
// source at a time (a control connection: a window linked into two
// watched sessions reaches both, and is read once). It is safe for
// concurrent use.
type Tracker struct {
	keep int

	mu    sync.Mutex
	panes map[string]*pane
}

type pane struct {
	source  uint64
	scan    Scanner
	state   State
	history []Command // ended commands, oldest first, at most keep
}

// NewTracker returns a Tracker that keeps the last keep ended commands of
// each pane (DefaultKeep when keep <= 0).
func NewTracker(keep int) *Tracker {
	if keep <= 0 {
		keep = DefaultKeep
	}
	return &Tracker{keep: keep, panes: map[string]*pane{}}
}

// Feed reads a chunk of a pane's output from source (nonzero), read at
// time at, and reports whether it held a mark. Chunks from a source other
// than the one that fed the pane first are dropped until that source is
// released.
func (t *Tracker) Feed(id string, source uint64, chunk []byte, at time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.panes[id]
	if p == nil {
		p = &pane{source: source}
		t.panes[id] = p
	}
	if p.source == 0 {
		// The last source was released: what it missed is not known.
		p.source, p.scan = source, Scanner{}
		if p.state.Marked {
			p.state.Unsure = true
		}
	}
	if p.source != source {
		return false
	}
	p.state.Bytes += uint64(len(chunk))
	var buf [8]Mark
	ms := p.scan.Feed(chunk, buf[:0])
	for _, m := range ms {
		t.apply(p, m, at)
	}
	return len(ms) > 0
}

// apply moves a pane's state by one mark.
func (t *Tracker) apply(p *pane, m Mark, at time.Time) {
	s := &p.state
	s.Marked = true
	s.LastKind = m.Kind
	switch m.Kind {
	case PromptStart, CommandStart:
		if m.Kind == PromptStart {
			s.Prompts++
		}
		if s.Running {
			// A prompt with no D: the command ended without saying how.
			t.ended(p, -1, at)
		}
		s.AtPrompt, s.Running, s.Unsure = true, false, false
	case OutputStart:
		if s.Running {
			t.ended(p, -1, at)
		}
		s.Last = Command{Seq: s.Ended + 1, Start: at, Status: -1}
		s.AtPrompt, s.Running, s.Unsure = false, true, false
	case CommandEnd:
		// A D with no C before it ends no command: shells mark the end of
		// an empty line too, or the reader began mid-command.
		if s.Running {
			t.ended(p, m.Status, at)
		}
		s.Ends++
		s.EndStatus = m.Status
		s.AtPrompt = false
	}
}

// ended records the running command's end.
func (t *Tracker) ended(p *pane, status int, at time.Time) {
	s := &p.state
	s.Running = false
	s.Ended++
	s.Last.End, s.Last.Status = at, status
	if len(p.history) == t.keep {
		p.history = append(p.history[:0], p.history[1:]...)
	}
	p.history = append(p.history, s.Last)
}

// Gap says a pane's output was dropped (tmux paused it): marks may have
// been missed.
func (t *Tracker) Gap(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.panes[id]; p != nil && p.state.Marked {
		p.state.Unsure = true
		p.scan = Scanner{}
	}
}

// Release says source feeds no pane any more (its connection closed): the
// next source to feed a pane takes it over.
func (t *Tracker) Release(source uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.panes {
		if p.source == source {
			p.source = 0
		}
	}
}

// State returns what the marks say of a pane, and false when no output of
// it was read.
func (t *Tracker) State(id string) (State, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.panes[id]
	if p == nil {
		return State{}, false
	}
	return p.state, true
}

// Tail returns what the pane printed since its last command ended (see
// Tail), with the state it goes with.
func (t *Tracker) Tail(id string) (Tail, State) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.panes[id]
	if p == nil {
		return Tail{}, State{}
	}
	return p.scan.tail.clone(), p.state
}

// Commands returns the ended commands kept for a pane, oldest first.
func (t *Tracker) Commands(id string) []Command {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.panes[id]
	if p == nil {
		return nil
	}
	return append([]Command(nil), p.history...)
}

// Reset forgets every pane (their server died: pane IDs begin again).
func (t *Tracker) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.panes = map[string]*pane{}
}

// Forget drops a pane (it is gone).
func (t *Tracker) Forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.panes, id)
}

// Read is what the marks say of a pane at one moment, as the supervisor
// answers it.
type Read struct {
	// Known is false while nothing is known: the pane printed nothing
	// since its reader began.
	Known bool
	State State
	// Tail is what the pane printed since its last command ended.
	Tail Tail
}
