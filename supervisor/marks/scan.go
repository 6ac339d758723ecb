package marks

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
	stOSC               // in an OSC, buffering: it may be 133
	stOSCEsc            // ESC inside a buffered OSC: ST or the end of it
	stSkip              // in an OSC that is not 133 (or too long): skip to its end
	stSkipEsc           // ESC inside a skipped OSC
)

// Scanner finds OSC 133 marks in a stream of terminal output that arrives
// in chunks. The zero value is ready. It is not safe for concurrent use.
type Scanner struct {
	st  scanState
	buf []byte // the OSC's payload so far (stOSC, stOSCEsc)
}

// prefix is what an OSC 133 payload starts with.
const prefix = "133;"

// Feed scans the next chunk of output and appends the marks that end in
// it to marks, in order.
func (s *Scanner) Feed(chunk []byte, marks []Mark) []Mark {
	for _, c := range chunk {
		switch s.st {
		case stText:
			if c == 0x1b {
				s.st = stEsc
			}
		case stEsc:
			switch c {
			case ']':
				s.st, s.buf = stOSC, s.buf[:0]
			case 0x1b:
				// ESC ESC: the second begins the sequence.
			default:
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
			if c == ']' {
				s.st, s.buf = stOSC, s.buf[:0]
			} else if c != 0x1b {
				s.st = stText
			}
		case stSkip:
			switch c {
			case 0x07, 0x18, 0x1a:
				s.st = stText
			case 0x1b:
				s.st = stSkipEsc
			}
		case stSkipEsc:
			switch c {
			case '\\':
				s.st = stText
			case ']':
				s.st, s.buf = stOSC, s.buf[:0]
			case 0x1b:
				s.st = stEsc
			default:
				s.st = stText
			}
		}
	}
	return marks
}

// end finishes the buffered OSC (its terminator seen) and appends its mark
// if it is one.
func (s *Scanner) end(marks []Mark) []Mark {
	s.st = stText
	if m, ok := parse(s.buf); ok {
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
