package marks

import "strings"

// Kind is the letter of an OSC 133 mark.
type Kind byte

// The marks tmux-mcp reads.
const (
	PromptStart  Kind = 'A' // a prompt is drawn
	CommandStart Kind = 'B' // the prompt ends: the command line is typed here
	OutputStart  Kind = 'C' // the command line was run: its output follows
	CommandEnd   Kind = 'D' // the command ended (with its status, when given)
)

// Mark is one OSC 133 mark found in a pane's output.
type Mark struct {
	Kind Kind
	// Status is the exit status a D mark gave (0-255), or -1 when it gave
	// none. A status that is not a number is -1; one past 255 is 255, as
	// tmux takes it.
	Status int
}

// maxPayload bounds what a Scanner buffers of one OSC 133 sequence. A
// longer one (a shell's own parameters beyond the status) is read only up
// to this many bytes; the letter and the status come first.
const maxPayload = 256

type scanState uint8

const (
	stText    scanState = iota
	stEsc               // after ESC
	stCSI               // in a control sequence (ESC [): to its final byte
	stEscInt            // after ESC and an intermediate byte (ESC ( B)
	stOSC               // in an OSC, buffering: it may be 133
	stOSCEsc            // ESC inside a buffered OSC: ST or the end of it
	stSkip              // in a string that is not 133 (another OSC, DCS, APC, too long): to its end
	stSkipEsc           // ESC inside a skipped string
)

// Scanner finds OSC 133 marks in a stream of terminal output that arrives
// in chunks, and keeps what was printed since the last D mark (Tail). The
// zero value is ready. It is not safe for concurrent use.
type Scanner struct {
	st  scanState
	buf []byte // the OSC's payload so far (stOSC, stOSCEsc)
	// col counts the cells printed since the last carriage return or line
	// feed, outside escape sequences (each character one cell).
	col  int
	tail Tail
	// csiN is the first parameter of the control sequence being read, and
	// csiMore says other bytes than its digits came.
	csiN    int
	csiMore bool
}

// prefix is what an OSC 133 payload starts with.
const prefix = "133;"

// Feed scans the next chunk of output and appends the marks that end in
// it to marks, in order.
func (s *Scanner) Feed(chunk []byte, marks []Mark) []Mark {
	for _, c := range chunk {
		switch s.st {
		case stText:
			s.text(c)
		case stEsc:
			switch {
			case c == ']':
				s.st, s.buf = stOSC, s.buf[:0]
			case c == '[':
				s.st, s.csiN, s.csiMore = stCSI, 0, false
			case c == 'P' || c == 'X' || c == '^' || c == '_':
				s.st = stSkip // DCS, SOS, PM, APC: strings to ST
			case c >= 0x20 && c <= 0x2f:
				s.st = stEscInt
			case c == 0x1b:
				// ESC ESC: the second begins the sequence.
			default:
				s.st = stText
			}
		case stCSI, stEscInt:
			switch {
			case c == 0x1b:
				s.st = stEsc
			case c == 0x18 || c == 0x1a:
				s.st = stText
			case s.st == stCSI && c >= 0x40 && c <= 0x7e:
				s.st = stText
				s.csi(c)
			case s.st == stCSI && c >= '0' && c <= '9' && !s.csiMore:
				s.csiN = min(s.csiN*10+int(c-'0'), 1<<16)
			case s.st == stCSI:
				s.csiMore = true
			case s.st == stEscInt && c >= 0x30 && c <= 0x7e:
				s.st = stText
			case s.st == stEscInt && (c < 0x20 || c > 0x2f):
				s.st = stText
			}
		case stOSC:
			switch {
			case c == 0x07:
				marks = s.end(marks)
			case c == 0x1b:
				s.st = stOSCEsc
			case c == 0x18 || c == 0x1a:
				// CAN and SUB cancel a sequence.
				s.st = stText
			default:
				s.buf = append(s.buf, c)
				if n := len(s.buf); (n <= len(prefix) && s.buf[n-1] != prefix[n-1]) || n > maxPayload {
					s.st = stSkip
				}
			}
		case stOSCEsc:
			if c == '\\' {
				marks = s.end(marks)
				continue
			}
			// An ESC that is not ST ends the OSC unfinished and begins a
			// sequence of its own.
			s.st = stEsc
			s.Feed([]byte{c}, nil)
		case stSkip:
			switch c {
			case 0x07, 0x18, 0x1a:
				s.st = stText
			case 0x1b:
				s.st = stSkipEsc
			}
		case stSkipEsc:
			if c == '\\' {
				s.st = stText
				continue
			}
			s.st = stEsc
			marks = s.Feed([]byte{c}, marks)
		}
	}
	return marks
}

// text moves the column by one byte of text.
func (s *Scanner) text(c byte) {
	switch {
	case c == 0x1b:
		s.st = stEsc
		return
	case c == '\r':
		s.col = 0
		s.tail.add(stepCR, 0)
	case c == '\n':
		s.tail.add(stepLF, 0)
	case c == '\b':
		s.col = max(0, s.col-1)
		s.tail.add(stepBS, 0)
	case c == '\t':
		s.col = (s.col/8 + 1) * 8
		s.tail.add(stepTab, 0)
	case c >= 0x20 && c != 0x7f && (c < 0x80 || c >= 0xc0):
		// A character (a UTF-8 sequence counts at its first byte).
		s.col++
		s.tail.add(stepPrint, 1)
	}
}

// csi moves the column by a control sequence that ended with final: the
// cursor moves along its row (CUF, CUB, CHA) as the tail follows; the
// sequences that leave the cursor where it is (colours, erasing, modes)
// change nothing; any other (to another row or place, saved and restored)
// leaves the tail unknown.
func (s *Scanner) csi(final byte) {
	n := max(s.csiN, 1)
	switch {
	case strings.IndexByte("mKJhlnqtXP@", final) >= 0:
	case final == 'C' && !s.csiMore:
		s.col += n
		s.tail.add(stepRight, n)
	case final == 'D' && !s.csiMore:
		s.col = max(0, s.col-n)
		s.tail.add(stepLeft, n)
	case (final == 'G' || final == '`') && !s.csiMore:
		s.col = n - 1
		s.tail.add(stepColumn, n-1)
	default:
		s.tail = Tail{}
	}
}

// end finishes the buffered OSC (its terminator seen) and appends its mark
// if it is one.
func (s *Scanner) end(marks []Mark) []Mark {
	s.st = stText
	if m, ok := parse(s.buf); ok {
		if m.Kind == CommandEnd {
			s.tail = Tail{Col: s.col, ok: true}
		}
		marks = append(marks, m)
	}
	s.buf = s.buf[:0]
	return marks
}

// parse reads an OSC payload as an OSC 133 mark: "133;" then the letter,
// then for D an optional ";status", then parameters ("k=v") that are not
// read.
func parse(p []byte) (Mark, bool) {
	if len(p) < len(prefix)+1 || string(p[:len(prefix)]) != prefix {
		return Mark{}, false
	}
	k := Kind(p[len(prefix)])
	rest := p[len(prefix)+1:]
	if len(rest) > 0 && rest[0] != ';' {
		return Mark{}, false // "133;AB": not a mark
	}
	switch k {
	case 'N':
		// kitty's "a new command begins": a prompt start, as tmux reads it.
		return Mark{Kind: PromptStart, Status: -1}, true
	case 'P', 'I':
		// A prompt's part (P, k=s for a continuation line) and the input
		// (I): at a prompt, not a new one.
		return Mark{Kind: CommandStart, Status: -1}, true
	case PromptStart, CommandStart, OutputStart:
		return Mark{Kind: k, Status: -1}, true
	case CommandEnd:
		return Mark{Kind: k, Status: status(rest)}, true
	}
	return Mark{}, false
}

// status reads the exit status of a D mark's rest (";7;aid=x"): -1 when
// there is none or it is not a number.
func status(rest []byte) int {
	if len(rest) < 2 {
		return -1
	}
	rest = rest[1:]
	n, digits := 0, 0
	for _, c := range rest {
		if c == ';' {
			break
		}
		if c < '0' || c > '9' {
			return -1
		}
		digits++
		if n <= 255 {
			n = n*10 + int(c-'0')
		}
	}
	if digits == 0 {
		return -1
	}
	return min(n, 255)
}
